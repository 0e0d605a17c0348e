"""A provider added the way docs/adding-a-provider.md says: this folder, plus one line in
INTEGRATIONS (tests/integrations/test_adding_a_provider.py adds it). Nothing else in the
code base knows about it."""

from pathlib import Path

from cerniq.integrations import Integration, Option

integration = Integration(
    key="echo",
    label="Echo (test provider)",
    backends={"whatsapp": "tests.integrations.echo.backend.EchoWhatsApp"},
    options={"api_token": Option("ECHO_API_TOKEN", default="echo-token")},
    receiver="tests.integrations.echo.receiver.EchoReceiver",
    package_dir=Path(__file__).parent,
)
