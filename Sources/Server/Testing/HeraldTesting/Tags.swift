import Testing

extension Tag {
    /// A test of what only a connection or a process has — HTTP framing, raw bytes, limits counted per connection,
    /// the port a server binds, `herald serve`, a proxy in front — which therefore binds ports. Every other API test
    /// calls Herald in process (`LiveHerald.Transport.inProcess`) and binds none.
    @Tag public static var endToEnd: Self
}
