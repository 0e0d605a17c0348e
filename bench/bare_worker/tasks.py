"""The bare project's one actor."""

import dramatiq

QUEUE = "bare"


@dramatiq.actor(queue_name=QUEUE, max_retries=0)
def trivial(n: int) -> None:
    """Nothing at all."""
