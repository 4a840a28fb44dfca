"""Secrets are masked wherever they surface: log messages, tracebacks, CLI errors."""

import logging

import pytest

from provisioner.conf import opts
from provisioner import redact


@pytest.fixture(autouse=True)
def clean_registry(monkeypatch):
    """Each test starts with no secret registered, and leaves none to the next."""
    monkeypatch.setattr(redact, '_secrets', set())


def test_registered_secrets_are_masked_in_messages_and_tracebacks(caplog):
    redact.register('hunter2-password', b'#!/bin/sh\necho user-data-line\n')
    logger = logging.getLogger('test.redact')
    caplog.handler.addFilter(redact.RedactingFilter())
    with caplog.at_level(logging.INFO, logger='test.redact'):
        logger.info('login with %s', 'hunter2-password')
        try:
            raise ValueError('bad echo user-data-line')
        except ValueError:
            logger.exception('failed')
    text = caplog.text
    assert 'hunter2-password' not in text and 'user-data-line' not in text
    assert text.count(redact.MASK) >= 2


def test_short_values_are_not_masked_so_messages_stay_readable():
    redact.register('wrong')
    assert redact.redact('wrong password') == 'wrong password'


def test_options_that_hold_secrets_are_marked_secret():
    for group, options in opts.list_opts():
        for opt in options:
            if any(word in opt.name for word in ('password', 'connection', 'url',
                                                 'secret')) \
                    and opt.name not in ('connection_uri', 'public_url', 'auth_url'):
                # (libvirt URIs, the API's public base URL and the identity URL
                # hosts log in at carry no credentials)
                assert opt.secret, '[%s] %s' % (group, opt.name)


def test_a_forgotten_secret_is_no_longer_held_or_masked():
    redact.register('old-token-123456', 'kept-password')
    redact.forget('old-token-123456')
    assert redact._secrets == {'kept-password'}
    assert redact.redact('old-token-123456') == 'old-token-123456'
