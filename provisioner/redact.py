"""Keep secrets out of logs and error messages: passwords, tokens, user data.

The code that holds a secret registers it; every log record and every error the CLI
prints passes through ``redact``. A registry of the actual values (not patterns)
catches a secret wherever it turns up, even inside a library's exception text.
"""

import logging
import threading

MASK = '***'
_MIN_LENGTH = 8  # shorter values would mask ordinary words ('wrong')
_lock = threading.Lock()
_secrets = set()


def _parts(values):
    """What is masked of each value: the whole and each line, stripped."""
    for value in values:
        if isinstance(value, bytes):
            value = value.decode('utf-8', errors='ignore')
        if not value:
            continue
        for part in [value] + value.splitlines():
            part = part.strip()
            if len(part) >= _MIN_LENGTH:
                yield part


def register(*values):
    """Remember secrets (str or bytes; user data line by line) for redaction."""
    with _lock:
        _secrets.update(_parts(values))


def forget(*values):
    """Stop masking secrets that were replaced (a renewed token): a long-lived
    process would otherwise keep, and scan every log line for, each one it held."""
    with _lock:
        _secrets.difference_update(_parts(values))


def redact(text):
    text = str(text)
    with _lock:
        known = sorted(_secrets, key=len, reverse=True)
    for secret in known:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


class RedactingFilter(logging.Filter):
    """A handler filter that masks registered secrets in messages and tracebacks."""

    def filter(self, record):
        message = record.getMessage()
        masked = redact(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
