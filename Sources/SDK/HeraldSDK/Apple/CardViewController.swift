#if canImport(WebKit) && canImport(UIKit)
    import Foundation
    import UIKit
    import WebKit
    import HeraldModel

    /// The notification card on iOS: a `WKWebView` over the app showing `CardAssets.document` — the SDK's own copy,
    /// never fetched — that talks to a `CardBridge` through the script handler `herald`. Media play inline and only
    /// after the user's tap (the card's rule); links (a file the message links to, a link inside the YouTube player)
    /// open outside through the SDK's link policy and the app's URL opener. It covers the screen (the card draws its
    /// own veil); going away without the user closing it records `notification.dismissed`.
    ///
    /// The SDK's presenter shows it; an app presenting cards itself does the same:
    ///
    /// ```swift
    /// let card = CardViewController(screen: client.screen(for: message), appearance: appearance)
    /// topViewController.present(card, animated: true)
    /// ```
    ///
    /// WebKit's delegate protocols are isolated differently by different SDKs: iOS 17's declares
    /// `WKNavigationDelegate`, `WKUIDelegate` and `WKScriptMessageHandler` (and `WKNavigationAction`, `WKScriptMessage`)
    /// nonisolated and not `Sendable`; later SDKs put all of them on the main actor. The delegate methods here are
    /// `nonisolated`, which satisfies either, and read WebKit's objects only on the main actor (`MainThreadObject`).
    public final class CardViewController: UIViewController, WKNavigationDelegate, WKUIDelegate {
        /// The bridge the card talks to.
        public let bridge: CardBridge
        private var webView: WKWebView?
        /// The card's messages, handed over by the script handler in the order the card posted them.
        private let messages: AsyncStream<MainThreadObject<WKScriptMessage>>
        private let received: AsyncStream<MainThreadObject<WKScriptMessage>>.Continuation
        /// Handles the card's messages one after the other.
        private var handling: Task<Void, Never>?

        /// A card showing `screen`'s message as `appearance` says; the direction and language the appearance leaves
        /// out are the app's.
        public init(screen: NotificationScreen, appearance: CardAppearance = CardAppearance()) {
            var appearance = appearance
            if appearance.direction == nil {
                let rightToLeft = UIView.userInterfaceLayoutDirection(for: .unspecified) == .rightToLeft
                appearance.direction = rightToLeft ? .rightToLeft : .leftToRight
            }
            if appearance.language == nil { appearance.language = Bundle.main.preferredLocalizations.first }
            bridge = CardBridge(screen: screen, appearance: appearance)
            (messages, received) = AsyncStream.makeStream()
            super.init(nibName: nil, bundle: nil)
            modalPresentationStyle = .overFullScreen
            modalTransitionStyle = .crossDissolve
        }

        @available(*, unavailable)
        required init?(coder: NSCoder) { fatalError("CardViewController is made in code") }

        deinit { received.finish() }

        /// The page's address: https, named after the app, as YouTube's embedded player asks of apps (without a
        /// referrer it refuses to play). Nothing is loaded from it: the page comes from `CardAssets.document`.
        static let baseURL = URL(
            string: "https://" + (Bundle.main.bundleIdentifier ?? "herald-card").lowercased() + "/")

        /// The web view as `CardAssets.webView` says: media inline, none waiting for a tap (the card starts nothing
        /// before one, and YouTube's player, made on that tap, starts itself), the script handler `herald`.
        public override func loadView() {
            let settings = CardAssets.webView
            let configuration = WKWebViewConfiguration()
            configuration.allowsInlineMediaPlayback = settings.inlineMediaPlayback
            configuration.mediaTypesRequiringUserActionForPlayback =
                settings.mediaPlaybackRequiresUserAction ? .all : []
            configuration.userContentController.add(ScriptHandler(received), name: settings.messageHandler)
            let webView = WKWebView(frame: .zero, configuration: configuration)
            webView.isOpaque = false
            webView.backgroundColor = .clear
            webView.scrollView.backgroundColor = .clear
            webView.scrollView.contentInsetAdjustmentBehavior = .never
            webView.accessibilityViewIsModal = true
            webView.navigationDelegate = self
            webView.uiDelegate = self
            self.webView = webView
            view = webView
        }

        /// Loads the card from the SDK and starts handling its messages.
        public override func viewDidLoad() {
            super.viewDidLoad()
            let messages = self.messages
            let bridge = self.bridge
            handling = Task { [weak self] in
                for await message in messages {
                    // On the main actor, where WebKit made the message.
                    guard message.object.frameInfo.isMainFrame, let text = message.object.body as? String else {
                        continue
                    }
                    let reply = await bridge.receive(text)
                    self?.apply(reply)
                }
            }
            webView?.loadHTMLString(CardAssets.document, baseURL: Self.baseURL)
        }

        /// Gone: `notification.dismissed` unless the user or the call to action closed it.
        public override func viewDidDisappear(_ animated: Bool) {
            super.viewDidDisappear(animated)
            guard isBeingDismissed || presentingViewController == nil else { return }
            webView?.configuration.userContentController.removeScriptMessageHandler(
                forName: CardAssets.webView.messageHandler)
            received.finish()
            // Closed by the app rather than the user: dismissed (nothing, when the card already closed itself).
            bridge.screen.close()
        }

        private func apply(_ reply: CardBridge.Reply) {
            for text in reply.messages {
                webView?.callAsyncJavaScript(
                    "heraldCard.receive(text)", arguments: ["text": text], in: nil, in: .page, completionHandler: nil)
            }
            if reply.closesCard { presentingViewController?.dismiss(animated: true) }
        }

        // MARK: - Links

        /// The card's own page loads; the YouTube player's frame loads what it needs; anything the page itself would
        /// navigate to opens outside instead.
        public nonisolated func webView(_ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction)
            async -> WKNavigationActionPolicy
        {
            await policy(for: MainThreadObject(navigationAction))
        }

        private func policy(for action: MainThreadObject<WKNavigationAction>) -> WKNavigationActionPolicy {
            let action = action.object
            guard let target = action.targetFrame else { return .allow }  // a new window: below
            if !target.isMainFrame { return .allow }
            let url = action.request.url
            if url == nil || url?.absoluteString == Self.baseURL?.absoluteString || url?.scheme == "about" {
                return .allow
            }
            if let url { openOutside(url) }
            return .cancel
        }

        /// A link asking for a new window (the YouTube player's title and logo): opened outside, never in the card.
        public nonisolated func webView(
            _ webView: WKWebView, createWebViewWith configuration: WKWebViewConfiguration,
            for navigationAction: WKNavigationAction, windowFeatures: WKWindowFeatures
        ) -> WKWebView? {
            let action = MainThreadObject(navigationAction)
            Task { @MainActor in
                if let url = action.object.request.url { self.openOutside(url) }
            }
            return nil
        }

        /// The web content stopped (memory pressure): the card goes rather than stay blank.
        public nonisolated func webViewWebContentProcessDidTerminate(_ webView: WKWebView) {
            Task { @MainActor in self.presentingViewController?.dismiss(animated: true) }
        }

        private func openOutside(_ url: URL) {
            let screen = bridge.screen
            let link = url.absoluteString
            Task { await screen.openLink(link) }
        }
    }

    /// Hands the card's messages over, in order, without the web view keeping the card alive.
    private final class ScriptHandler: NSObject, WKScriptMessageHandler {
        private let received: AsyncStream<MainThreadObject<WKScriptMessage>>.Continuation

        init(_ received: AsyncStream<MainThreadObject<WKScriptMessage>>.Continuation) { self.received = received }

        nonisolated func userContentController(
            _ controller: WKUserContentController, didReceive message: WKScriptMessage
        ) {
            received.yield(MainThreadObject(message))
        }
    }

    /// An object WebKit made on the main thread and handed to a delegate method, carried to the main actor to be read
    /// there. iOS 17's SDK declares these objects neither `Sendable` nor isolated; later SDKs isolate them to the main
    /// actor. Unchecked `Sendable` is safe because WebKit calls its delegates on the main thread and never changes
    /// these objects afterwards, and `object` is read only on the main actor (every use here is in main actor code).
    struct MainThreadObject<Object: AnyObject>: @unchecked Sendable {
        let object: Object

        init(_ object: Object) { self.object = object }
    }
#endif
