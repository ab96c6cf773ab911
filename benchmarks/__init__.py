"""toolsearch's benchmarks: one harness, ``python -m benchmarks COMMAND`` from a checkout.

Not part of the product (the wheel ships ``toolsearch_cli`` alone) and never imported by it.
``python -m benchmarks`` lists the commands; ``benchmarks/README.md`` says which command gives
which headline figure.
"""
