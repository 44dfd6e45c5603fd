#if canImport(WebKit) && canImport(UIKit)
    import Foundation
    import UIKit
    import WebKit
    import HeraldModel

    /// The notification card on iOS: a `WKWebView` over the app showing `CardAssets.document` — the SDK's own copy,
    /// never fetched — that talks to a `CardBridge` through the script handler `herald`. Media play inline and only
    /// after the user's tap; links (a file the message links to, a link inside the YouTube player) open outside
    /// through the SDK's link policy and the app's URL opener. It covers the screen (the card draws its own veil);
    /// going away without the user closing it records `notification.dismissed`.
    ///
    /// The SDK's presenter shows it; an app presenting cards itself does the same:
    ///
    /// ```swift
    /// let card = CardViewController(screen: client.screen(for: message), appearance: appearance)
    /// topViewController.present(card, animated: true)
    /// ```
    public final class CardViewController: UIViewController, WKNavigationDelegate, WKUIDelegate {
        /// The bridge the card talks to.
        public let bridge: CardBridge
        private var webView: WKWebView?
        /// The card's messages are handled one after the other, in the order it posted them.
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
            super.init(nibName: nil, bundle: nil)
            modalPresentationStyle = .overFullScreen
            modalTransitionStyle = .crossDissolve
        }

        @available(*, unavailable)
        required init?(coder: NSCoder) { fatalError("CardViewController is made in code") }

        /// The page's address: https, named after the app, as YouTube's embedded player asks of apps (without a
        /// referrer it refuses to play). Nothing is loaded from it: the page comes from `CardAssets.document`.
        static let baseURL = URL(
            string: "https://" + (Bundle.main.bundleIdentifier ?? "herald-card").lowercased() + "/")

        /// The web view: inline playback, every medium waiting for a tap, the script handler `herald`.
        public override func loadView() {
            let configuration = WKWebViewConfiguration()
            configuration.allowsInlineMediaPlayback = true
            configuration.mediaTypesRequiringUserActionForPlayback = .all
            configuration.userContentController.add(ScriptHandler(card: self), name: "herald")
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

        /// Loads the card from the SDK.
        public override func viewDidLoad() {
            super.viewDidLoad()
            webView?.loadHTMLString(CardAssets.document, baseURL: Self.baseURL)
        }

        /// Gone: `notification.dismissed` unless the user or the call to action closed it.
        public override func viewDidDisappear(_ animated: Bool) {
            super.viewDidDisappear(animated)
            guard isBeingDismissed || presentingViewController == nil else { return }
            webView?.configuration.userContentController.removeScriptMessageHandler(forName: "herald")
            // Closed by the app rather than the user: dismissed (nothing, when the card already closed itself).
            bridge.screen.close()
        }

        /// A message the card posted, handled after the ones before it.
        fileprivate func received(_ text: String) {
            let previous = handling
            let bridge = self.bridge
            handling = Task { [weak self] in
                await previous?.value
                let reply = await bridge.receive(text)
                self?.apply(reply)
            }
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
        public func webView(_ webView: WKWebView, decidePolicyFor navigationAction: WKNavigationAction) async
            -> WKNavigationActionPolicy
        {
            guard let target = navigationAction.targetFrame else { return .allow }  // a new window: below
            if !target.isMainFrame { return .allow }
            let url = navigationAction.request.url
            if url == nil || url?.absoluteString == Self.baseURL?.absoluteString || url?.scheme == "about" {
                return .allow
            }
            if let url { openOutside(url) }
            return .cancel
        }

        /// A link asking for a new window (the YouTube player's title and logo): opened outside, never in the card.
        public func webView(
            _ webView: WKWebView, createWebViewWith configuration: WKWebViewConfiguration,
            for navigationAction: WKNavigationAction, windowFeatures: WKWindowFeatures
        ) -> WKWebView? {
            if let url = navigationAction.request.url { openOutside(url) }
            return nil
        }

        /// The web content stopped (memory pressure): the card goes rather than stay blank.
        public func webViewWebContentProcessDidTerminate(_ webView: WKWebView) {
            presentingViewController?.dismiss(animated: true)
        }

        private func openOutside(_ url: URL) {
            let screen = bridge.screen
            let link = url.absoluteString
            Task { await screen.openLink(link) }
        }
    }

    /// Hands the card's messages to its view controller without the web view keeping the controller alive.
    private final class ScriptHandler: NSObject, WKScriptMessageHandler {
        private weak var card: CardViewController?

        init(card: CardViewController) { self.card = card }

        func userContentController(_ controller: WKUserContentController, didReceive message: WKScriptMessage) {
            guard message.frameInfo.isMainFrame, let text = message.body as? String else { return }
            card?.received(text)
        }
    }
#endif
