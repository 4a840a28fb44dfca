"""Flow factories and the tasks they are made of.

Factories are module-level functions of JSON-serialisable arguments, so a flow saved
by one process can be rebuilt by another (resume, takeover).
"""
