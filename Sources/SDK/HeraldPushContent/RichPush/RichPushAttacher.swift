import Foundation
import HeraldModel

/// The notification service extension's work, testable anywhere: read `ab.att`, download it over https to a file
/// (a chunk at a time, never the whole file in memory), stop at the kind's size limit, check the
/// bytes are what the type says, and save the file with its type's suffix. Any failure, or time running out,
/// answers a failure and leaves no file behind: the extension then delivers the notification as it came.
///
/// ```swift
/// let attacher = RichPushAttacher(fetcher: URLSessionMediaFetcher(), directory: FileManager.default.temporaryDirectory)
/// switch await attacher.attach(payload: payload) {
/// case .success(let file): content.attachments = [try UNNotificationAttachment(identifier: "media", url: file.fileURL)]
/// case .failure: break  // deliver the original content
/// }
/// ```
public struct RichPushAttacher: Sendable {
    private let fetcher: any MediaFetcher
    private let directory: URL
    private let options: RichPushOptions
    private let sleep: @Sendable (Duration) async throws -> Void

    /// An attacher saving into `directory`; `sleep` is how it waits for its deadline (injected by tests).
    public init(
        fetcher: any MediaFetcher, directory: URL, options: RichPushOptions = RichPushOptions(),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.fetcher = fetcher
        self.directory = directory
        self.options = options
        self.sleep = sleep
    }

    /// Downloads and saves the payload's `ab.att`, within `options.timeout`.
    public func attach(payload: JSON) async -> Result<PreparedAttachment, AttachmentFailure> {
        let plan: AttachmentPlan
        switch AttachmentPlan.make(payload: payload, options: options) {
        case .success(let value): plan = value
        case .failure(let failure): return .failure(failure)
        }
        let timeout = options.timeout
        let sleep = self.sleep
        return await withTaskGroup(of: Result<PreparedAttachment, AttachmentFailure>?.self) { group in
            group.addTask { await self.download(plan) }
            group.addTask {
                do {
                    try await sleep(timeout)
                } catch {
                    return nil
                }
                return .failure(AttachmentFailure(code: .timedOut, detail: "no media after \(timeout)"))
            }
            var outcome: Result<PreparedAttachment, AttachmentFailure> = .failure(
                AttachmentFailure(code: .timedOut))
            while let next = await group.next() {
                guard let result = next else { continue }
                outcome = result
                group.cancelAll()
                break
            }
            // Let the loser finish before answering: a cancelled download removes its own file, and one that
            // finished after the deadline anyway is removed here.
            while let late = await group.next() {
                if case .success(let saved)? = late { try? FileManager.default.removeItem(at: saved.fileURL) }
            }
            return outcome
        }
    }

    /// Fetches and saves `plan`, or fails leaving no file.
    func download(_ plan: AttachmentPlan) async -> Result<PreparedAttachment, AttachmentFailure> {
        let response: MediaResponse
        do {
            response = try await fetcher.fetch(plan.url, maximumBytes: plan.maximumBytes, timeout: options.timeout)
        } catch {
            return .failure(error)
        }
        let body = response.body
        return await withTaskCancellationHandler {
            await save(response, plan: plan)
        } onCancel: {
            body.cancel()
        }
    }

    private func save(_ response: MediaResponse, plan: AttachmentPlan) async -> Result<
        PreparedAttachment, AttachmentFailure
    > {
        let body = response.body
        guard (200..<300).contains(response.status) else {
            body.cancel()
            return .failure(AttachmentFailure(code: .httpStatus, detail: "answered \(response.status)"))
        }
        if ContentSniffer.isTextContentType(response.contentType) {
            body.cancel()
            return .failure(
                AttachmentFailure(code: .wrongContent, detail: "Content-Type \(response.contentType ?? "")"))
        }
        if let expected = response.expectedLength, expected > plan.maximumBytes {
            body.cancel()
            return .failure(
                AttachmentFailure(code: .tooLarge, detail: "\(expected) bytes, at most \(plan.maximumBytes)"))
        }
        let partial = directory.appendingPathComponent("herald-\(UUID().uuidString).part")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            body.cancel()
            return .failure(AttachmentFailure(code: .storage, detail: "\(error.localizedDescription)"))
        }
        guard FileManager.default.createFile(atPath: partial.path, contents: nil),
            let handle = try? FileHandle(forWritingTo: partial)
        else {
            body.cancel()
            return .failure(AttachmentFailure(code: .storage, detail: "cannot create the file"))
        }
        func fail(_ failure: AttachmentFailure) -> Result<PreparedAttachment, AttachmentFailure> {
            body.cancel()
            try? handle.close()
            try? FileManager.default.removeItem(at: partial)
            return .failure(failure)
        }
        var written = 0
        var head: [UInt8] = []
        do {
            while let chunk = try await body.nextChunk() {
                if Task.isCancelled { return fail(AttachmentFailure(code: .timedOut, detail: "cancelled")) }
                written += chunk.count
                guard written <= plan.maximumBytes else {
                    return fail(
                        AttachmentFailure(code: .tooLarge, detail: "more than \(plan.maximumBytes) bytes"))
                }
                if head.count < 16 { head.append(contentsOf: chunk.prefix(16 - head.count)) }
                try handle.write(contentsOf: chunk)
            }
            if Task.isCancelled { return fail(AttachmentFailure(code: .timedOut, detail: "cancelled")) }
            try handle.close()
        } catch let failure as AttachmentFailure {
            return fail(failure)
        } catch {
            return fail(AttachmentFailure(code: .storage, detail: error.localizedDescription))
        }
        guard written > 0 else { return fail(AttachmentFailure(code: .wrongContent, detail: "empty file")) }
        var suffix = plan.type
        if plan.kind == .image {
            guard let actual = ContentSniffer.imageType(head) else {
                return fail(AttachmentFailure(code: .wrongContent, detail: "not a JPEG, PNG or GIF"))
            }
            if actual != (plan.type == "jpeg" ? "jpg" : plan.type) { suffix = actual }
        } else if ContentSniffer.looksLikeText(head) {
            return fail(AttachmentFailure(code: .wrongContent, detail: "text, not \(plan.kind)"))
        }
        let final = directory.appendingPathComponent("herald-\(UUID().uuidString).\(suffix)")
        do {
            try FileManager.default.moveItem(at: partial, to: final)
        } catch {
            try? FileManager.default.removeItem(at: partial)
            return .failure(AttachmentFailure(code: .storage, detail: error.localizedDescription))
        }
        return .success(PreparedAttachment(fileURL: final, kind: plan.kind, type: suffix, byteCount: written))
    }
}
