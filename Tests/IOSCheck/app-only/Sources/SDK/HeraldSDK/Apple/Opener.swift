import UIKit

/// Fine in an extension: no app-only API.
struct Greeting {
    let text = "hello"
}

/// App-only API without `@available(iOSApplicationExtension, unavailable)`.
public struct Opener {
    /// Opens `url`.
    @MainActor
    public func open(_ url: URL) async -> Bool {
        await UIApplication.shared.open(url)
    }
}
