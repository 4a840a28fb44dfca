"""The compute API's request schemas, one module per resource (Nova's schemas/).

A microversion that changes a body gets its own schema next to the previous one
(``CREATE_V22``), derived from it; the controller names each with its range.
"""
