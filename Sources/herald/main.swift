import HeraldRuntime

await Command.main(arguments: Array(CommandLine.arguments.dropFirst()))
