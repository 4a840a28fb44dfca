"""Flow factories (``boot``, ``delete``, ``power``, ``volume``) and the steps they are
made of (``flows.steps``).

Factories are module-level functions of JSON-serialisable arguments, so a flow saved
by one process can be rebuilt by another (resume, takeover): a persisted flow detail
names its factory by module path (``flows.boot.create_flow``), so a factory never
moves.
"""
