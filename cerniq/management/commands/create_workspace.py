"""Create a workspace and its first admin (cerniq.workspaces): the first step of a
production install, after `migrate`."""

from __future__ import annotations

import getpass
import os
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from cerniq.workspaces import (
    WorkspaceRefused,
    check_new_workspace,
    create_workspace,
    existing_admin,
)

PASSWORD_VARIABLE = "CERNIQ_ADMIN_PASSWORD"  # noqa: S105 (a variable's name)


class Command(BaseCommand):
    help = (
        "Create a workspace (tenant) and make a user its admin, creating the account if it "
        f"does not exist. The new account's password is read from {PASSWORD_VARIABLE}, or "
        "asked for; it is never an argument. Refuses an existing workspace slug."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", required=True, help="the workspace's name, as shown")
        parser.add_argument("--slug", required=True, help="short id: letters, digits, - and _")
        parser.add_argument("--admin-username", required=True)
        parser.add_argument("--admin-email", required=True)
        parser.add_argument(
            "--superuser",
            action="store_true",
            help="also make the admin a Django superuser (/admin/: users, phones, providers)",
        )
        parser.add_argument(
            "--noinput",
            "--no-input",
            action="store_false",
            dest="interactive",
            help=f"never prompt; the password must be in {PASSWORD_VARIABLE}",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        username = options["admin_username"]
        password = None
        try:
            check_new_workspace(options["name"], options["slug"], username, options["admin_email"])
            if existing_admin(username) is None:
                password = self._password(options["interactive"])
            result = create_workspace(
                name=options["name"],
                slug=options["slug"],
                admin_username=username,
                admin_email=options["admin_email"],
                password=password,
                superuser=options["superuser"],
            )
        except WorkspaceRefused as refused:
            option = f"--{refused.field}"
            if refused.field == "password":
                option = f"the admin's password ({PASSWORD_VARIABLE} or the prompt)"
            raise CommandError(f"{option}: {refused.message}") from None
        tenant = result.tenant
        self.stdout.write(self.style.SUCCESS(f"Workspace '{tenant.name}' ({tenant.slug}) created."))
        if result.admin_created:
            self.stdout.write(f"Admin account '{username}' created; it can log in at /login/.")
        else:
            self.stdout.write(f"Existing account '{username}' is its admin (password unchanged).")
        self.stdout.write(
            "Next: add its WhatsApp numbers (Phones > Add a number) and register the webhook "
            "URLs shown on the workspace's admin page."
        )

    def _password(self, interactive: bool) -> str:
        from_env = os.environ.get(PASSWORD_VARIABLE, "")
        if from_env:
            return from_env
        if not interactive or not sys.stdin.isatty():
            raise CommandError(
                f"The new admin account needs a password: set {PASSWORD_VARIABLE} in the "
                "environment, or run the command in a terminal to be asked. Nothing was changed."
            )
        first = getpass.getpass("Password for the admin: ")
        if first != getpass.getpass("Password (again): "):
            raise CommandError("The two passwords differ; nothing was changed.")
        return first
