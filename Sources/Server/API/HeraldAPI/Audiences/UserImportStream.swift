import HeraldDomain
import HeraldHTTPServer
import HeraldModel

/// The body of `POST …/users/import` taken as it arrives: NDJSON lines read as they complete, checked, and
/// imported a batch at a time (`batchSize` lines, or `batchBytes` of them, in one transaction), so that an import
/// of any size holds at most one batch. Lines refused (malformed, missing their identity, bad values, too long)
/// are answered with their number and why; the first `listedRejections` of them are listed, all counted.
///
/// A batch is written on a thread of the stream's own (`BatchWriter`) while the connection's thread reads and parses the
/// next: the database's time and the parse's overlap instead of adding up, with at most two batches held (the one
/// written, the one read). Batches are still written one after another, in order.
final class UserImportStream: HTTPBodyConsumer {
    /// Lines imported in one transaction.
    static let batchSize = 1_000
    /// Bytes of lines that end a batch early (a thousand long lines are not held at once).
    static let batchBytes = 4 << 20
    /// The longest line, in bytes.
    static let maximumLineBytes = 64 * 1024
    /// The most refused lines listed in the answer (all are counted).
    static let listedRejections = 1_000

    private let importer: UserImporter
    private let businessID: Int64
    private var reader = NDJSONLineReader(maxLineBytes: UserImportStream.maximumLineBytes)
    private var batch: [ImportedUser] = []
    private var pendingBytes = 0
    /// Writes the batches, one at a time.
    private let writer = BatchWriter<UserImportResult>()
    /// Whether a batch is being written.
    private var writing = false
    private var created = 0
    private var updated = 0
    private var rejectedCount = 0
    /// The refused lines with the lowest numbers, up to twice `listedRejections` between trims.
    private var rejected: [UserImportResult.Rejection] = []

    /// A stream importing into `businessID`.
    init(importer: UserImporter, businessID: Int64) {
        self.importer = importer
        self.businessID = businessID
        batch.reserveCapacity(Self.batchSize)
    }

    deinit { writer.close() }

    func receive(_ bytes: UnsafeRawBufferPointer) throws {
        try reader.feed(bytes) { try take($0) }
    }

    func finish() throws -> HTTPResponse {
        try reader.finish { try take($0) }
        try flush()
        try collect()
        rejected.sort { $0.line < $1.line }
        let listed = rejected.prefix(Self.listedRejections)
        return .json(status: .ok, capacity: 256 + listed.count * 96) { writer in
            writer.beginObject()
            writer.field("created", created)
            writer.field("updated", updated)
            writer.key("rejected")
            writer.beginArray()
            for rejection in listed {
                writer.beginObject()
                writer.field("line", rejection.line)
                writer.key("errors")
                writer.beginObject()
                for field in rejection.errors {
                    writer.key(field.name)
                    writer.beginArray()
                    for message in field.messages { writer.value(message) }
                    writer.endArray()
                }
                writer.endObject()
                writer.endObject()
            }
            writer.endArray()
            writer.field("rejected_count", rejectedCount)
            writer.field("rejected_truncated", rejectedCount > listed.count)
            writer.field("lines", reader.linesRead)
            writer.endObject()
        }
    }

    private func take(_ line: NDJSONLineReader.Line) throws {
        switch line {
        case .tooLong(let number, let length):
            reject(
                .init(
                    line: number,
                    errors: [.init("base", ["line is too long (\(length) bytes; at most \(Self.maximumLineBytes))"])]))
        case .text(let number, let bytes):
            var errors = FieldErrors()
            guard let user = ImportLineParser.parse(bytes, line: number, &errors) else {
                reject(.init(line: number, errors: errors.errors.map { .init($0.field, $0.messages) }))
                return
            }
            batch.append(user)
            pendingBytes += bytes.count
            if batch.count >= Self.batchSize || pendingBytes >= Self.batchBytes { try flush() }
        }
    }

    /// Waits for the batch being written, then starts writing this one.
    private func flush() throws {
        guard !batch.isEmpty else { return }
        try collect()
        let (importer, businessID, lines) = (importer, businessID, batch)
        writer.start { try importer.importBatch(lines, businessID: businessID) }
        writing = true
        batch = []
        batch.reserveCapacity(Self.batchSize)
        pendingBytes = 0
    }

    /// Waits for the batch being written, if any, and counts its outcome.
    private func collect() throws {
        guard writing else { return }
        writing = false
        let result = try writer.wait()
        created += result.created
        updated += result.updated
        for rejection in result.rejected { reject(rejection) }
    }

    private func reject(_ rejection: UserImportResult.Rejection) {
        rejectedCount += 1
        rejected.append(rejection)
        if rejected.count >= 2 * Self.listedRejections {
            rejected.sort { $0.line < $1.line }
            rejected.removeLast(rejected.count - Self.listedRejections)
        }
    }
}
