import Testing

@testable import HeraldSDK

/// Nothing plays until Play; viewed once, completed once.
@Suite struct MediaPlaybackTests {
    @Test func nothingPlaysUntilPlay() {
        var playback = MediaPlayback()
        #expect(playback.state == .idle && !playback.isPlaying)
        #expect(playback.progress(position: 5, duration: 30).isEmpty, "a player's report before Play changes nothing")
        #expect(playback.position == 0)
        #expect(playback.play() == [.viewed(positionSeconds: 0)])
        #expect(playback.isPlaying)
    }

    @Test func viewedOnceCompletedOnce() {
        var playback = MediaPlayback()
        _ = playback.play()
        playback.pause()
        #expect(playback.state == .paused)
        #expect(playback.play().isEmpty, "resuming is not a second view")
        #expect(playback.progress(position: 10, duration: 30).isEmpty)
        #expect(playback.progress(position: 29.2, duration: 30) == [.completed])
        #expect(playback.state == .finished && playback.position == 30)
        #expect(playback.play().isEmpty)
        #expect(playback.position == 0, "playing again starts over")
        #expect(playback.finish().isEmpty, "completed once")
    }

    @Test func seekingAndStartingMidway() {
        var playback = MediaPlayback()
        _ = playback.progress(position: 0, duration: 60)
        playback.seek(to: 12.5)
        #expect(playback.play() == [.viewed(positionSeconds: 12.5)])
        playback.seek(to: 500)
        #expect(playback.position == 60)
        playback.seek(to: -3)
        #expect(playback.position == 0)
        playback.seek(to: .nan)
        #expect(playback.position == 0)
        playback.stop()
        #expect(playback.state == .paused)
    }

    @Test func aFinishBeforeDurationIsKnownCompletes() {
        var playback = MediaPlayback()
        #expect(playback.finish().isEmpty, "not started: nothing")
        _ = playback.play()
        #expect(playback.finish() == [.completed])
    }
}
