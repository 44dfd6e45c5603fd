/// An HTTP status code with the reasons Herald answers with named.
package struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
    /// The numeric code.
    package let code: Int

    /// The status `code`.
    package init(_ code: Int) { self.code = code }

    package static let ok = HTTPStatus(200)
    package static let created = HTTPStatus(201)
    package static let accepted = HTTPStatus(202)
    package static let noContent = HTTPStatus(204)
    package static let partialContent = HTTPStatus(206)
    package static let notModified = HTTPStatus(304)
    package static let badRequest = HTTPStatus(400)
    package static let unauthorized = HTTPStatus(401)
    package static let forbidden = HTTPStatus(403)
    package static let notFound = HTTPStatus(404)
    package static let methodNotAllowed = HTTPStatus(405)
    package static let conflict = HTTPStatus(409)
    package static let preconditionFailed = HTTPStatus(412)
    package static let payloadTooLarge = HTTPStatus(413)
    package static let unsupportedMediaType = HTTPStatus(415)
    package static let rangeNotSatisfiable = HTTPStatus(416)
    package static let unprocessableEntity = HTTPStatus(422)
    package static let tooManyRequests = HTTPStatus(429)
    package static let requestHeaderFieldsTooLarge = HTTPStatus(431)
    package static let internalServerError = HTTPStatus(500)
    package static let notImplemented = HTTPStatus(501)
    package static let serviceUnavailable = HTTPStatus(503)

    package var description: String { String(code) }
}
