import HeraldServer

Command.main(arguments: Array(CommandLine.arguments.dropFirst()))
