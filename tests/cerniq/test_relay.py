"""cerniq.relay: stored webhook events reach the workers in batches, off the request path,
and none is lost when sending fails or the process goes away."""

from __future__ import annotations

import os
import threading

import pytest

from cerniq import relay as relay_module
from cerniq import tasks, webhooks
from cerniq.models import WebhookEvent
from cerniq.relay import MAX_BATCH, Relay
from tests.drain import running_workers, wait_until
from tests.factories import make_tenant

Status = WebhookEvent.Status


class Recorder:
    def __init__(self, fail: int = 0) -> None:
        self.batches: list[list[int]] = []
        self.fail = fail
        self.sent = threading.Event()

    def __call__(self, batch: list[int]) -> None:
        if self.fail:
            self.fail -= 1
            raise ConnectionError("broker down")
        self.batches.append(list(batch))
        self.sent.set()


@pytest.fixture
def windowed(settings):
    settings.WEBHOOK_RELAY_WAIT = 0.2


def test_without_a_window_each_event_is_sent_at_once_from_the_caller(settings):
    settings.WEBHOOK_RELAY_WAIT = 0
    recorder = Recorder()
    relay = Relay(recorder)
    relay.submit(1)
    relay.submit(2)
    assert recorder.batches == [[1], [2]]
    assert relay._thread is None


def test_events_gathered_in_the_window_go_as_one_batch_in_order(windowed):
    recorder = Recorder()
    relay = Relay(recorder)
    for event_id in (5, 3, 9):
        relay.submit(event_id)
    assert recorder.batches == []  # submit returned without sending: off the request path
    assert recorder.sent.wait(5)  # then the relay's thread sent them, without another submit
    assert recorder.batches == [[5, 3, 9]]
    relay.flush()


def test_a_batch_is_at_most_max_batch(windowed):
    recorder = Recorder()
    relay = Relay(recorder)
    ids = list(range(1, MAX_BATCH * 2 + 8))
    for event_id in ids:
        relay.submit(event_id)
    relay.flush()
    assert [x for batch in recorder.batches for x in batch] == ids
    assert max(len(batch) for batch in recorder.batches) == MAX_BATCH


def test_flush_sends_what_is_queued(settings):
    settings.WEBHOOK_RELAY_WAIT = 60  # a window longer than the test
    recorder = Recorder()
    relay = Relay(recorder)
    relay.submit(1)
    relay.submit(2)
    relay.flush()
    assert recorder.batches == [[1, 2]]
    relay.submit(3)  # a new thread after a flush
    relay.flush()
    assert recorder.batches == [[1, 2], [3]]


def test_a_failed_send_is_logged_and_the_relay_keeps_going(windowed, caplog):
    recorder = Recorder(fail=1)
    relay = Relay(recorder)
    relay.submit(1)
    relay.flush()
    relay.submit(2)
    relay.flush()
    assert recorder.batches == [[2]]
    assert "webhook events [1] stored, not sent to the workers" in caplog.text


def test_a_forked_child_starts_its_own_thread(windowed):
    """A gunicorn or Dramatiq worker is forked after the relay may have run in the parent."""
    recorder = Recorder()
    relay = Relay(recorder)
    relay.submit(1)
    relay.flush()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: submit, flush, report what was sent
        try:
            relay.submit(2)
            relay.flush()
            os.write(write, repr(recorder.batches).encode())
        finally:
            os._exit(0)
    os.close(write)
    os.waitpid(pid, 0)
    assert os.read(read, 1000).decode() == "[[1], [2]]"
    os.close(read)


def test_send_batch_sends_one_message_per_batch(monkeypatch):
    single, many = [], []
    monkeypatch.setattr(tasks.process_webhook_event, "send", single.append)
    monkeypatch.setattr(tasks.process_webhook_events, "send", many.append)
    relay_module._send_batch([7])
    relay_module._send_batch([7, 8, 9])
    assert (single, many) == ([7], [[7, 8, 9]])


def _stored(tenant, key: str) -> int:
    return webhooks.store_event(
        WebhookEvent(
            tenant=tenant,
            provider="sandbox",
            event_type="message:received:new",
            provider_event_id=key,
            raw_body=b"{}",
            verified=True,
        )
    )


def test_a_batch_processes_each_event_and_sends_a_failure_on_alone(monkeypatch, tenant):
    ids = [_stored(tenant, key) for key in ("a", "b", "c")]
    processed, retried = [], []

    def process(event_id):
        if event_id == ids[1]:
            raise RuntimeError("handler failed")
        processed.append(event_id)

    monkeypatch.setattr(webhooks, "process_event", process)
    monkeypatch.setattr(
        tasks.process_webhook_event,
        "send_with_options",
        lambda args, delay: retried.append((args, delay)),
    )
    tasks.process_webhook_events.fn(ids)
    assert processed == [ids[0], ids[2]]
    assert retried == [((ids[1],), tasks.RETRY_DELAY_MS)]


def test_an_interrupted_batch_hands_the_rest_on(monkeypatch, tenant):
    ids = [_stored(tenant, key) for key in ("a", "b", "c")]
    retried = []

    class Shutdown(BaseException):
        pass

    def process(event_id):
        if event_id == ids[1]:
            raise Shutdown

    monkeypatch.setattr(webhooks, "process_event", process)
    monkeypatch.setattr(
        tasks.process_webhook_event,
        "send_with_options",
        lambda args, delay: retried.append(args[0]),
    )
    with pytest.raises(Shutdown):
        tasks.process_webhook_events.fn(ids)
    assert retried == ids[1:]


HANDLED: list[int] = []


class CountingReceiver(webhooks.Receiver):
    provider = "sandbox"

    def handle(self, event, payload):
        HANDLED.append(event.pk)
        return True


@pytest.mark.django_db(transaction=True)
def test_stored_events_reach_a_real_worker_through_the_relay(settings, monkeypatch):
    """Stored → relay thread → one broker message → worker → each event processed once."""
    settings.WEBHOOK_RELAY_WAIT = 0.3
    tenant = make_tenant()
    sent_batches: list[list[int]] = []
    real_send = relay_module._send_batch

    def spy(batch):
        sent_batches.append(list(batch))
        real_send(batch)

    relay = Relay(spy)
    monkeypatch.setattr(webhooks, "receivers", lambda: {"sandbox": f"{__name__}.CountingReceiver"})
    HANDLED.clear()
    with running_workers():
        original = webhooks.relay
        webhooks.relay = relay
        try:
            ids = []
            for key in ("r1", "r2", "r3"):
                ids.append(_stored(tenant, key))
                webhooks.enqueue_processing(ids[-1])
            wait_until(
                lambda: WebhookEvent.objects.filter(status=Status.RECEIVED).count() == 0,
                timeout=20,
                what=lambda: list(WebhookEvent.objects.values_list("status", "error")),
            )
        finally:
            webhooks.relay = original
            relay.flush()
    assert sent_batches == [ids]
    assert ids == HANDLED  # each once, in order
    assert (
        list(WebhookEvent.objects.order_by("pk").values_list("status", "attempts"))
        == [(Status.PROCESSED, 1)] * 3
    )
