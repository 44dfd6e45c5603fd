import HeraldFuzzTargets
/// Built by scripts/fuzz with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer's driver; built plainly: replays the
/// files and directories named on the command line.
@main
enum Fuzzer {
    static func main() {
        FuzzTargets.main { data, size in
            FuzzTargets.pushPayload(FuzzTargets.bytes(data, size))
            return 0
        }
    }
}
