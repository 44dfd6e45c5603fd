import CCurl

extension HTTPClientError.Code {
    /// The error code for a failed curl transfer.
    init(curlCode: CURLcode) {
        switch curlCode {
        case CURLE_OPERATION_TIMEDOUT:
            self = .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            self = .connectionFailed
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER,
            CURLE_SSL_CACERT_BADFILE, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_USE_SSL_FAILED:
            self = .tls
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_GOT_NOTHING,
            CURLE_PARTIAL_FILE:
            self = .connectionReset
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL, CURLE_BAD_FUNCTION_ARGUMENT:
            self = .invalidRequest
        case CURLE_ABORTED_BY_CALLBACK:
            self = .cancelled
        default:
            self = .other
        }
    }
}

extension HTTPClientError {
    /// An error for a failed curl transfer, described by curl's text for the code and, when set, the
    /// transfer's error buffer (which names hosts and TLS reasons, never request contents).
    init(curlCode: CURLcode, detail: UnsafePointer<CChar>?) {
        var message = String(cString: curl_easy_strerror(curlCode))
        if let detail, detail.pointee != 0 {
            message += ": "
            message += String(cString: detail)
        }
        self.init(code: Code(curlCode: curlCode), message: message)
    }
}
