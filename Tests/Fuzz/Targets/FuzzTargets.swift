import Foundation
import HeraldModel

/// What each libFuzzer target (Tests/Fuzz/Fuzz*, built by scripts/fuzz with `-sanitize=fuzzer,address`) does with
/// one input: hand it to one parser, which must answer (a value or an error) without crashing, hanging or leaking.
public enum FuzzTargets {
    /// `JSON.parse` on the bytes; what parses must write and read back to an equal value.
    public static func json(_ bytes: [UInt8]) {
        guard let value = try? JSON.parse(bytes) else { return }
        let written = value.encoded
        guard let again = try? JSON.parse(written) else { fatalError("written JSON does not parse") }
        if !value.containsNaN, again != value { fatalError("JSON does not read back equal") }
    }

    /// `NDJSONLineReader` fed the bytes in pieces whose sizes the first byte chooses, with a small line limit;
    /// the lines it hands over must be the same as when fed in one piece.
    public static func ndjson(_ bytes: [UInt8]) {
        guard let first = bytes.first else { return }
        let input = Array(bytes.dropFirst())
        let limit = Int(first % 64) + 1
        let step = Int(first / 64) * 7 + 1
        var whole = NDJSONLineReader(maxLineBytes: limit)
        var wholeLines: [NDJSONLineReader.Line] = []
        whole.feed(input) { wholeLines.append($0) }
        whole.finish { wholeLines.append($0) }
        var pieces = NDJSONLineReader(maxLineBytes: limit)
        var pieceLines: [NDJSONLineReader.Line] = []
        var start = 0
        while start < input.count {
            let end = min(start + step, input.count)
            pieces.feed(input[start..<end]) { pieceLines.append($0) }
            start = end
        }
        pieces.finish { pieceLines.append($0) }
        if wholeLines != pieceLines { fatalError("NDJSON lines depend on how the input is split") }
        if whole.linesRead != pieces.linesRead { fatalError("NDJSON line counts differ") }
        for case .text(_, let line) in wholeLines where line.count > limit { fatalError("NDJSON line over the limit") }
    }

    /// A fixed survey with every question type, asked to validate the input as answers; an input object with
    /// `definition` and `answers` also checks the definition parser and validates those answers against it.
    public static func survey(_ bytes: [UInt8]) {
        guard let value = try? JSON.parse(bytes) else { return }
        let validator = SurveyValidator(fixedSurvey)
        _ = validator.validate(json: value)
        if let answers = try? SurveyAnswers(json: value) {
            _ = validator.normalized(answers)
            for index in 0..<(fixedSurvey.questions.count + 1) {
                _ = validator.problem(forQuestionAt: index, in: answers)
                _ = validator.canAdvance(past: index, with: answers)
            }
        }
        guard let definitionJSON = value["definition"],
            let definition = try? SurveyDefinition(json: definitionJSON)
        else { return }
        guard (try? SurveyDefinition(json: definition.json)) == definition else {
            fatalError("survey definition does not read back equal")
        }
        if let answersJSON = value["answers"] {
            let own = SurveyValidator(definition)
            _ = own.validate(json: answersJSON)
            if let answers = try? SurveyAnswers(json: answersJSON) { _ = own.normalized(answers) }
        }
    }

    /// The push-payload decoders: an APNs payload and a Herald message push read back from JSON, and the FCM
    /// data map (the object's string values) decoded.
    public static func pushPayload(_ bytes: [UInt8]) {
        guard let value = try? JSON.parse(bytes) else { return }
        if let content = APNsPayload.decode(value) { _ = APNsPayload.encode(content) }
        _ = MessagePush(json: value)
        _ = MessagePush(apnsPayload: value)
        var data: [String: String] = [:]
        for (key, field) in value.objectValue ?? [] {
            if let text = field.stringValue { data[key] = text }
        }
        let content = FCMPayload.decode(data: data, title: data["title"], body: data["body"])
        _ = FCMPayload.data(content)
        _ = MessagePush(fcmData: data)
    }

    /// The template renderer: the input (as UTF-8, invalid bytes repaired) as title, subtitle and body of a
    /// check-in template, validated and rendered with values that themselves hold braces.
    public static func template(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: "\u{0}", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        let template = NotificationTemplate(
            event: .checkin, title: parts[0], subtitle: parts.count > 1 ? parts[1] : "",
            body: parts.count > 2 ? parts[2] : text)
        _ = template.validate()
        _ = template.render(["first_name": "{{first_name}}", "points": "}}{{", "business_name": text])
    }

    /// What a fuzzer's `main` does: built with `-DFUZZING` (scripts/fuzz), hands `fuzz` to libFuzzer's driver with
    /// the command line; built plainly, replays the inputs named on the command line.
    ///
    /// SwiftPM links every executable with its own `main` (it renames the module's entry point and points `main` at
    /// it), so libFuzzer's `main` is never used: the driver is started from here instead.
    public static func main(_ fuzz: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        #if FUZZING
            var argc = CommandLine.argc
            var argv = CommandLine.unsafeArgv
            exit(LLVMFuzzerRunDriver(&argc, &argv, fuzz))
        #else
            replay { bytes in _ = bytes.withUnsafeBufferPointer { fuzz($0.baseAddress, $0.count) } }
            exit(0)
        #endif
    }

    /// Copies libFuzzer's input (which may be a null pointer when empty).
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// Runs `fuzz` on every file named on the command line (directories: every file in them): what each fuzzer
    /// does when built without libFuzzer, so a corpus or a crash input can be replayed by an ordinary build.
    public static func replay(_ fuzz: ([UInt8]) -> Void) {
        var files: [String] = []
        for argument in CommandLine.arguments.dropFirst() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []
                files += names.sorted().map { argument + "/" + $0 }
            } else {
                files.append(argument)
            }
        }
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            fuzz(Array(data))
        }
        print("replayed \(files.count) inputs")
    }

    /// The survey the answers are checked against: one question of each type, with limits.
    static let fixedSurvey: SurveyDefinition = {
        let text = #"""
            {"title":"Your visit","questions":[
             {"id":"q1","text":"Rate us","type":"rating","required":true,"min":1,"max":5},
             {"id":"q2","text":"Pick one","type":"single_choice","required":false,
              "choices":[{"id":"a","text":"A"},{"id":"b","text":"B"}]},
             {"id":"q3","text":"Pick some","type":"multiple_choice","required":false,"min_selected":1,"max_selected":2,
              "choices":[{"id":"a","text":"A"},{"id":"b","text":"B"},{"id":"c","text":"C"}]},
             {"id":"q4","text":"Say more","type":"open_ended","required":false,"max_length":20},
             {"id":"q5","text":"How far","type":"slider","required":false,"min":0,"max":10,"allow_decimals":true},
             {"id":"q6","text":"How many","type":"number","required":false,"min":-5,"max":5},
             {"id":"q7","text":"Again?","type":"boolean","required":false}
            ]}
            """#
        // swift-format-ignore: NeverUseForceTry
        return try! SurveyDefinition(json: JSON.parse(text))
    }()
}

#if FUZZING
    /// libFuzzer's driver (in libclang_rt.fuzzer, linked by `-sanitize=fuzzer`).
    @_silgen_name("LLVMFuzzerRunDriver")
    private func LLVMFuzzerRunDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt
#endif

extension JSON {
    /// Whether a NaN is anywhere in the value (NaN is never equal to itself).
    fileprivate var containsNaN: Bool {
        switch self {
        case .double(let number): return number.isNaN
        case .array(let items): return items.contains { $0.containsNaN }
        case .object(let fields): return fields.contains { $0.value.containsNaN }
        default: return false
        }
    }
}
