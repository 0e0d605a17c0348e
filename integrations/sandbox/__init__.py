"""The sandbox: WhatsApp and email backends that record sends and send nothing.

For `make run` and demos only. With DEBUG off, selecting a sandbox backend is an error
unless ALLOW_SANDBOX_PROVIDERS says so on purpose (cerniq.checks).
"""

from pathlib import Path

from cerniq.integrations import SANDBOX, Integration

integration = Integration(
    key=SANDBOX,
    label="Sandbox",
    backends={
        "whatsapp": "integrations.sandbox.whatsapp.SandboxWhatsApp",
        "email": "integrations.sandbox.email.SandboxEmail",
    },
    package_dir=Path(__file__).parent,
)
