import Dispatch
import Foundation
import HeraldFuzzTargets
import HeraldHTTPClient
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Built by scripts/fuzz with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer's driver; built plainly: replays the
/// files and directories named on the command line.
@main
enum Fuzzer {
    static func main() {
        FuzzTargets.main { data, size in
            fuzzHTTP2Response(FuzzTargets.bytes(data, size))
            return 0
        }
    }
}

/// The input as what an HTTP/2 server sends after its SETTINGS, to a client that has just sent it one `POST` on
/// stream 1 (as a push to APNs): the client (nghttp2, then Herald's session, pool and slots) must complete the
/// request once, with a response or an error, without crashing or hanging, whatever the frames: responses,
/// interim and trailing header blocks, `RST_STREAM`s, `GOAWAY`s, `PING`s, window updates, frames on streams that
/// were never opened, garbage. A server that refuses the stream gets the request again on a new connection, with
/// the same bytes, until the client's resend limit.
func fuzzHTTP2Response(_ bytes: [UInt8]) {
    let server = Peers.server
    server.reply.withLock { $0 = bytes }
    let done = DispatchSemaphore(value: 0)
    let completions = Atomic<Int>(0)
    let request = HTTPClientRequest(
        method: "POST", url: "http://127.0.0.1:\(server.port)/3/device/\(String(repeating: "ab", count: 32))",
        headers: [("apns-id", "6E52D6C0-1C1E-4F5A-9C8B-7F1E2D3C4B5A"), ("apns-topic", "com.example.fuzz")],
        body: Array(#"{"aps":{"alert":"hi"}}"#.utf8), timeout: .seconds(2))
    Peers.client.execute(request) { result in
        if completions.add(1, ordering: .relaxed).newValue > 1 { fatalError("a request completed twice") }
        if case .success(let response) = result, !(200...599).contains(response.status) {
            fatalError("a response with status \(response.status)")
        }
        #if !FUZZING
            // Replaying: what each input came to.
            switch result {
            case .success(let response): print("\(response.status), \(response.body.count) body bytes")
            case .failure(let error): print("failed: \(error)")
            }
        #endif
        done.signal()
    }
    // The request's own timeout is 2 s; far past it, the client hangs.
    if done.wait(timeout: .now() + .seconds(8)) == .timedOut { fatalError("the request never completed") }
    // The next input starts on a new connection: this one is closed first (the client closes it at the end of
    // the server's bytes, the server once the client has).
    let deadline = DispatchTime.now() + .seconds(8)
    while server.busy.load(ordering: .acquiring) {
        if DispatchTime.now() > deadline { fatalError("the client never closed the connection") }
        usleep(200)
    }
}

/// The canned server and the client, made once, that talks to it in cleartext HTTP/2.
enum Peers {
    static let server = CannedResponseServer(.http2)
    static let client: HTTP2Client = {
        var configuration = HTTP2Client.Configuration(maxConnectionsPerHost: 1, connectTimeout: .seconds(2))
        configuration.cleartextHTTP2 = true
        configuration.minConnectionsPerHost = 0
        do {
            return try HTTP2Client(configuration: configuration)
        } catch {
            fatalError("cannot make the client: \(error)")
        }
    }()
}
