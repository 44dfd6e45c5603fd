import Foundation
import HeraldModel
import HeraldTesting

// Checks answers against docs/openapi.json with the validator the Swift suites use (HeraldTesting's
// OpenAPIValidator), for the Python suites (Tests/Browser/openapi_check.py): each line of standard input is one
// exchange, `{"method","target","status","content_type","body_base64"}` (`method` null for a request that was not
// HTTP); each problem is printed on a line of its own, and the exit status is 1 when there was any.
var problems = 0
while let line = readLine(strippingNewline: true) {
    guard !line.isEmpty else { continue }
    guard let exchange = try? JSON.parse(Array(line.utf8)), let target = exchange["target"]?.stringValue,
        let status = exchange["status"]?.int64Value,
        let body = Data(base64Encoded: exchange["body_base64"]?.stringValue ?? "")
    else {
        print("openapi-check: not an exchange: \(line.prefix(200))")
        problems += 1
        continue
    }
    for problem in OpenAPIValidator.shared.problems(
        .init(
            method: exchange["method"]?.stringValue, target: target, status: Int(status),
            contentType: exchange["content_type"]?.stringValue, body: Array(body)))
    {
        print(problem)
        problems += 1
    }
}
exit(problems == 0 ? 0 : 1)
