from toolsearch_cli.cli.app import main

main()
