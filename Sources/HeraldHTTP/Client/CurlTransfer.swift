import CCurl

/// One curl easy handle and the buffers of the request it is running; reused from request to request.
///
/// Confined to the event-loop thread. curl's callbacks reach it through an unretained `Unmanaged` pointer
/// (`CURLOPT_WRITEDATA`, `CURLOPT_HEADERDATA`, `CURLOPT_PRIVATE`); the loop keeps it alive meanwhile.
final class CurlTransfer {
    /// Options shared by every transfer of one client.
    struct Settings {
        var connectTimeoutMilliseconds: Int
        var maxIdleSeconds: Int
        /// `CURLOPT_CAINFO`, or `nil` for curl's default.
        var caFile: String?
        /// Whether to clear `CURLOPT_CAPATH` (see ``CABundle``).
        var clearsCAPath: Bool
        var maxResponseBodySize: Int
    }

    let easy: UnsafeMutableRawPointer
    /// The request being run; `nil` while the transfer sits in the free list.
    var pending: PendingRequest?
    /// Position in the loop's list of active transfers.
    var activeIndex = -1
    /// Header lines of the latest response, as received.
    private(set) var responseHeaderBytes: [UInt8] = []
    /// The response body received so far.
    private(set) var responseBody: [UInt8] = []
    /// Set when the body outgrew the limit and the write callback stopped the transfer.
    private(set) var responseBodyTooLarge = false
    private var maxResponseBodySize = 0
    /// `CURLOPT_ERRORBUFFER`: curl's detail for a failure.
    let errorBuffer: UnsafeMutablePointer<CChar>
    private let headerList = CurlHeaderList()
    /// The request body, copied here because `CURLOPT_POSTFIELDS` does not copy.
    private var upload: UnsafeMutableRawPointer
    private var uploadCapacity: Int

    init?() {
        guard let easy = curl_easy_init() else { return nil }
        self.easy = easy
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        uploadCapacity = 1024
        upload = .allocate(byteCount: uploadCapacity, alignment: 1)
    }

    deinit {
        curl_easy_cleanup(easy)
        errorBuffer.deallocate()
        upload.deallocate()
    }

    /// What a request sets on the handle beyond its URL, headers, body and timeout. A request of the shape the
    /// handle last ran keeps every other option as it was: curl keeps options from transfer to transfer, so
    /// `curl_easy_reset` and twenty options set again are paid only when the shape changes, not per push.
    private struct Shape: Equatable {
        var method: String
        var hasBody: Bool
        var isPlainHTTP: Bool
    }

    /// The shape the handle is set up for; `nil` before the first request.
    private var shape: Shape?

    /// Sets the handle up for `request`. `timeoutMilliseconds` of 0 means no limit.
    func prepare(_ request: HTTPClientRequest, timeoutMilliseconds: Int, settings: Settings) -> HTTPClientError? {
        errorBuffer[0] = 0
        responseHeaderBytes.removeAll(keepingCapacity: true)
        responseBody = []
        responseBodyTooLarge = false
        maxResponseBodySize = settings.maxResponseBodySize

        var failure = CURLE_OK
        func check(_ code: CURLcode) { if failure == CURLE_OK { failure = code } }

        let method = request.method
        let isPost = method == "POST"
        let hasBody = method != "HEAD" && (!request.body.isEmpty || isPost || method == "PUT" || method == "PATCH")
        let wanted = Shape(method: method, hasBody: hasBody, isPlainHTTP: Self.isPlainHTTP(request.url))
        if wanted != shape {
            shape = nil
            curl_easy_reset(easy)
            setUp(wanted, settings: settings, check)
            if failure == CURLE_OK { shape = wanted }
        }

        let urlResult = request.url.withCString { herald_curl_easy_setopt_ptr(easy, CURLOPT_URL, $0) }
        check(urlResult)
        check(herald_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, timeoutMilliseconds))
        if hasBody {
            copyUpload(request.body)
            check(herald_curl_easy_setopt_off(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count)))
            check(herald_curl_easy_setopt_ptr(easy, CURLOPT_POSTFIELDS, upload))
        }
        let headers = headerList.build(request.headers, hasBody: hasBody)
        check(herald_curl_easy_setopt_ptr(easy, CURLOPT_HTTPHEADER, headers))

        guard failure == CURLE_OK else {
            shape = nil
            return HTTPClientError(curlCode: failure, detail: nil)
        }
        return nil
    }

    /// Sets the options that stay from request to request while their shape does.
    private func setUp(_ shape: Shape, settings: Settings, _ check: (CURLcode) -> Void) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        check(herald_curl_easy_setopt_ptr(easy, CURLOPT_PROTOCOLS_STR, Self.protocols.utf8Start))
        check(herald_curl_easy_setopt_ptr(easy, CURLOPT_PRIVATE, context))
        if shape.isPlainHTTP {
            // No TLS, no ALPN, no HTTP/2: nothing to multiplex, so no waiting for a shared connection either
            // (with PIPEWAIT, curl would hold every request to a new host until the first one's response).
            check(herald_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1)))
        } else {
            check(herald_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)))
            check(herald_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1))
        }
        check(herald_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        check(herald_curl_easy_setopt_long(easy, CURLOPT_TCP_NODELAY, 1))
        check(herald_curl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1))
        check(herald_curl_easy_setopt_long(easy, CURLOPT_TCP_KEEPIDLE, 30))
        check(herald_curl_easy_setopt_long(easy, CURLOPT_TCP_KEEPINTVL, 15))
        check(herald_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, settings.connectTimeoutMilliseconds))
        check(herald_curl_easy_setopt_long(easy, CURLOPT_MAXAGE_CONN, settings.maxIdleSeconds))
        check(herald_curl_easy_setopt_ptr(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        if let caFile = settings.caFile {
            check(caFile.withCString { herald_curl_easy_setopt_ptr(easy, CURLOPT_CAINFO, $0) })
        }
        if settings.clearsCAPath {
            check(herald_curl_easy_setopt_ptr(easy, CURLOPT_CAPATH, nil))
        }

        check(herald_curl_easy_setopt_ptr(easy, CURLOPT_WRITEDATA, context))
        check(
            herald_curl_easy_setopt_write(easy, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                let length = size * count
                guard let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
            })
        check(herald_curl_easy_setopt_ptr(easy, CURLOPT_HEADERDATA, context))
        check(
            herald_curl_easy_setopt_write(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                let length = size * count
                guard let context else { return 0 }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
                return length
            })

        let isGet = shape.method == "GET"
        if shape.method == "HEAD" {
            check(herald_curl_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
        } else if !(shape.method == "POST" || (isGet && !shape.hasBody)) {
            check(shape.method.withCString { herald_curl_easy_setopt_ptr(easy, CURLOPT_CUSTOMREQUEST, $0) })
        }
    }

    /// The status code curl parsed, after the transfer is done.
    var responseCode: Int {
        var code = 0
        _ = herald_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// New connections this transfer had to open, after it is done or removed.
    var connectionsOpened: Int {
        var count = 0
        _ = herald_curl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &count)
        return count
    }

    /// Hands over the response received (headers parsed) and forgets it.
    func takeResponse() -> (headers: [(name: String, value: String)], body: [UInt8]) {
        let headers = ResponseHeaderParser.parse(responseHeaderBytes)
        let body = responseBody
        clearResponse()
        return (headers, body)
    }

    /// Drops the response received, keeping the header buffer's capacity.
    func clearResponse() {
        responseBody = []
        responseHeaderBytes.removeAll(keepingCapacity: true)
    }

    private static let protocols: StaticString = "http,https"

    /// Whether `url` starts with `http://`, in any case.
    static func isPlainHTTP(_ url: String) -> Bool {
        var bytes = url.utf8.makeIterator()
        for expected in "http://".utf8 {
            guard let byte = bytes.next(), ResponseHeaderParser.lowercased(byte) == expected else { return false }
        }
        return true
    }

    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard responseBody.count + bytes.count <= maxResponseBodySize else {
            responseBodyTooLarge = true
            return false
        }
        responseBody.append(contentsOf: bytes)
        return true
    }

    private func receiveHeaderLine(_ line: UnsafeRawBufferPointer) {
        if ResponseHeaderParser.isStatusLine(line) {
            // A new response (after 1xx, or a retried request): keep only the last one's headers.
            responseHeaderBytes.removeAll(keepingCapacity: true)
        } else if line.count > 2 {
            responseHeaderBytes.append(contentsOf: line)
        }
    }

    private func copyUpload(_ body: [UInt8]) {
        if body.count > uploadCapacity {
            upload.deallocate()
            uploadCapacity = max(body.count, uploadCapacity * 2)
            upload = .allocate(byteCount: uploadCapacity, alignment: 1)
        }
        body.withUnsafeBytes { bytes in
            if let source = bytes.baseAddress { upload.copyMemory(from: source, byteCount: bytes.count) }
        }
    }
}
