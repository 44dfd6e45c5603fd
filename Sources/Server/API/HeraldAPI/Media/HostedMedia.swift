import HeraldHTTPServer
import HeraldModel

/// The media Herald hosts itself, as a notification, template or offer may name it: a link under
/// `<public URL>/media/` must name a file uploaded here, of the type it is given as. (Links elsewhere are the
/// sender's to keep working.)
struct HostedMedia: Sendable {
    let library: MediaLibrary
    /// The scheme, host and port devices reach Herald at, without a trailing slash (known once it listens).
    let baseURL: @Sendable () -> String

    /// Whether `url` links to media hosted here (under `<public URL>/media/`).
    func isHosted(_ url: String) -> Bool { url.hasPrefix(baseURL() + "/media/") }

    /// Adds to `errors` what is wrong with `media` if it names a file hosted here.
    func check(_ media: MediaAttachment, field: String, _ errors: inout FieldErrors) {
        let prefix = baseURL() + "/media/"
        guard media.url.hasPrefix(prefix) else { return }
        // The name, without the query or fragment a link may carry (the download route ignores them too).
        let name = media.url.dropFirst(prefix.count).prefix { $0 != "?" && $0 != "#" }
        guard let file = library.file(named: String(name)) else {
            errors.add(
                field + ".url",
                "names no media uploaded here (POST /api/admin/businesses/{id}/media answers the url to use)")
            return
        }
        if MediaType.named(media.type) != file.type {
            errors.add(field + ".type", "must be \(file.type.name): the file at this url is one")
        }
    }
}
