from toolsearch_cli.cli.ahead import main

main()
