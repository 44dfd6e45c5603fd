import Foundation
import HeraldHTTPServer
import HeraldModel
import HeraldObservability
import HeraldTesting
import Synchronization
import Testing

/// Routing answers and request parsing.
extension HTTPServerTests {
    // MARK: - Routing answers

    @Test func anUnknownPathIs404JSON() throws {
        let server = try TestServer()
        let response = try server.get("/nowhere")
        #expect(response.status == 404)
        #expect(response.isJSON)
        #expect(response.errorFields == ["base": ["no route for GET /nowhere"]])
        #expect(try server.get("/items").status == 404)
        #expect(try server.get("/items/1/tags").status == 404)
        #expect(try server.get("/x/y").status == 404)
    }

    @Test func aKnownPathWithAnotherMethodIs405WithAllow() throws {
        let server = try TestServer()
        let post = try server.client().request("POST", "/x", body: Array("{}".utf8))
        #expect(post.status == 405)
        #expect(post.isJSON)
        #expect(post.header("allow") == "GET")
        #expect(post.errorFields?.keys.sorted() == ["base"])

        let delete = try server.client().request("DELETE", "/echo")
        #expect(delete.status == 405)
        #expect(delete.header("allow") == "GET, POST")

        let odd = try server.client().request("BREW", "/x")
        #expect(odd.status == 405 || odd.status == 501, "\(odd)")
    }

    @Test func headIsAnsweredByTheGetRoute() throws {
        let server = try TestServer()
        let get = try server.get("/x")
        let head = try server.client().request("HEAD", "/x")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.isJSON)
        #expect(head.header("content-length") == get.header("content-length"))
        #expect(try server.client().request("HEAD", "/nowhere").status == 404)
    }

    @Test func aHandlerErrorIs500WithoutDetails() throws {
        let server = try TestServer()
        let response = try server.get("/fail")
        #expect(response.status == 500)
        #expect(response.isJSON)
        let message = try #require(response.errorFields?["base"]?.first)
        #expect(message.contains(response.header("x-request-id") ?? "?"))
        #expect(!message.contains("Unexpected"))
        // A thrown HTTPError keeps its own status.
        let teapot = try server.get("/teapot")
        #expect(teapot.status == 418)
        #expect(teapot.errorFields == ["base": ["short and stout"]])
    }

    // MARK: - Parsing

    @Test(arguments: [
        ("/items/hello%20world", "hello world"), ("/items/caf%C3%A9", "café"), ("/items/a+b", "a+b"),
        ("/items/100%25", "100%"),
        ("/items/%7Bid%7D", "{id}"), ("/items/bad%zzescape", "bad%zzescape"), ("/items/%F0%9F%8D%94", "🍔"),
    ])
    func pathParametersArePercentDecoded(target: String, id: String) throws {
        let server = try TestServer()
        let response = try server.get(target)
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["id"] == .string(id))
    }

    @Test(.bug(id: "apitests-5", "an encoded slash in a path parameter splits the path"))
    func anEncodedSlashStaysInsideItsParameter() throws {
        let server = try TestServer()
        let response = try server.get("/items/a%2Fb")
        #expect(response.status == 200, "\(response)")
        #expect(response.value?["id"] == "a/b")
    }

    @Test func literalSegmentsWinAndSeveralParametersAreCaptured() throws {
        let server = try TestServer()
        #expect(try server.get("/items/special").value?["special"] == true)
        let tagged = try server.get("/items/7/tags/new%20in")
        #expect(tagged.value?["id"] == "7")
        #expect(tagged.value?["tag"] == "new in")
    }

    @Test func theQueryIsParsedInOrder() throws {
        let server = try TestServer()
        let response = try server.get("/query?a=1&b=two%20words&c=x+y&d&a=2&e=%E2%9C%93&f=%zz&&g=&h=a%3Db%26c")
        #expect(response.status == 200)
        let list = try #require(response.value?.arrayValue)
        let pairs = list.map { $0.arrayValue?.compactMap(\.stringValue) ?? [] }
        #expect(
            pairs == [
                ["a", "1"], ["b", "two words"], ["c", "x y"], ["d", ""], ["a", "2"], ["e", "✓"], ["f", "%zz"],
                ["g", ""], ["h", "a=b&c"],
            ])
        #expect(try server.get("/query").value == [])
        #expect(try server.get("/query?").value == [])
    }

    @Test func theTargetIsKeptExactlyAsSent() throws {
        let server = try TestServer()
        let response = try server.get("/echo?b=2&a=%41")
        #expect(response.value?["target"] == "/echo?b=2&a=%41")
        #expect(response.value?["path"] == "/echo")
    }

    @Test func aJSONBodyOnGetReachesTheHandler() throws {
        let server = try TestServer()
        let body = #"{"client":"abc","qty":2}"#
        let response = try server.client().request(
            "GET", "/echo", headers: [("Content-Type", "application/json")], body: Array(body.utf8))
        #expect(response.status == 200)
        #expect(response.value?["method"] == "GET")
        #expect(response.value?["body"] == .string(body))
        #expect(response.value?["json"] == ["client": "abc", "qty": 2])
    }

    @Test func bodyBytesArrivePrecisely() throws {
        let server = try TestServer()
        let body: [UInt8] = [0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0x00, 0xE2, 0x9C, 0x93, 0x0D, 0x0A, 0x22, 0x7D]
        let response = try server.client().request("POST", "/echo", body: body)
        #expect(response.value?["length"] == .int(Int64(body.count)))
    }

    @Test func headerNamesAreLowerCasedAndValuesKept() throws {
        let server = try TestServer()
        let response = try server.get(
            "/headers", headers: [("X-Mixed-Case", "Value With  Spaces"), ("x-pch-digest", "ABCDEF")])
        #expect(response.value?["x-mixed-case"] == "Value With  Spaces")
        #expect(response.value?["x-pch-digest"] == "ABCDEF")
    }

    @Test func garbageRequestsDoNotHurtTheServer() throws {
        let server = try TestServer()
        for garbage in [
            "GARBAGE\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "\r\n\r\n\r\n",
            "GET /x HTTP/1.1\r\nBad Header\r\n\r\n",
        ] {
            let client = server.client(timeout: 5)
            try? client.send(raw: Array(garbage.utf8))
            if let response = try? client.readResponse() {
                #expect(
                    response.status >= 400 && response.status < 600 || response.status == 200, "\(garbage): \(response)"
                )
            }
        }
        #expect(try server.get("/x").status == 200)
    }
}
