#if canImport(SwiftUI) && canImport(UIKit)
    import SwiftUI
    import HeraldModel

    /// The notification screen drawn: a card over the app following the system's appearance, a close button in
    /// its top-right corner, headline and body, media (a Play button before anything plays), the call to action,
    /// and the survey wizard. All its logic is `NotificationScreen`'s.
    struct NotificationCardView: View {
        let screen: NotificationScreen
        @StateObject private var model: CardModel
        @Environment(\.dismiss) private var dismiss

        init(screen: NotificationScreen) {
            self.screen = screen
            _model = StateObject(wrappedValue: CardModel())
        }

        var body: some View {
            let card = screen.card
            VStack(alignment: .leading, spacing: 12) {
                HStack {
                    if card.showsSandboxRibbon {
                        Text("SANDBOX").font(.caption.bold()).padding(4).background(Color.orange).foregroundColor(
                            .white)
                    }
                    Spacer()
                    Button {
                        screen.close()
                        dismiss()
                    } label: {
                        Image(systemName: "xmark.circle.fill").font(.title2)
                    }
                    .accessibilityLabel("Close")
                }
                if let media = card.media {
                    mediaView(media)
                }
                Text(card.headline).font(.headline)
                Text(card.body).font(.body)
                if let wizard = screen.wizard {
                    wizardView(wizard)
                } else if let label = card.ctaLabel {
                    Button(label) {
                        Task {
                            if case .opened = await screen.openCTA() { dismiss() }
                        }
                    }
                    .buttonStyle(.borderedProminent)
                }
            }
            .padding()
            .background(Color(uiColor: .systemBackground))
            .cornerRadius(16)
            .padding()
            .id(model.revision)
            .onAppear {
                let model = self.model
                screen.onChange { Task { @MainActor in model.revision += 1 } }
                screen.didAppear()
            }
        }

        @ViewBuilder
        private func mediaView(_ media: NotificationCard.Media) -> some View {
            if media.kind == .image, let url = URL(string: media.url) {
                AsyncImage(url: url) { image in
                    image.resizable().scaledToFit()
                } placeholder: {
                    ProgressView()
                }
            } else if media.isPlayable {
                let playing = screen.playback?.isPlaying == true
                Button(playing ? "Pause" : "Play") { playing ? screen.pause() : screen.play() }
            } else if let url = URL(string: media.url) {
                Link("Open", destination: url)
            }
        }

        @ViewBuilder
        private func wizardView(_ wizard: SurveyWizard) -> some View {
            if let question = wizard.currentQuestion {
                let progress = wizard.progress
                ProgressView(value: Double(progress.current), total: Double(max(progress.total, 1)))
                Text(question.text).font(.subheadline.bold())
                if let problem = wizard.shownProblem {
                    Text(problem.message).font(.footnote).foregroundColor(.red)
                }
                ForEach(question.choices, id: \.id) { choice in
                    Button(choice.text) { screen.answer(.string(choice.id)) }
                }
                HStack {
                    if wizard.canGoBack { Button("Back") { screen.back() } }
                    Spacer()
                    Button(wizard.isOnLastQuestion ? "Submit" : "Next") { screen.next() }
                        .disabled(!wizard.canGoNext)
                }
            } else {
                Text("Thank you!").font(.headline)
                if let label = screen.card.ctaLabel {
                    Button(label) { Task { _ = await screen.openCTA() } }
                }
            }
        }
    }
    /// Redraws the card when the screen changes.
    @MainActor
    final class CardModel: ObservableObject {
        @Published var revision = 0
        nonisolated init() {}
    }
#endif
