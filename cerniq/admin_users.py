"""Django's user admin with an "Unlock sign-in" action (cerniq.signin), so an admin who is
asked by a locked-out colleague finds it where the colleague's account is."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

from cerniq import signin

User = get_user_model()


class UnlockingUserAdmin(UserAdmin):
    actions = ("unlock_sign_in",)

    @admin.action(description="Unlock sign-in (forget failed attempts)", permissions=["change"])
    def unlock_sign_in(self, request: HttpRequest, queryset: QuerySet) -> None:
        names = [user.get_username() for user in queryset]
        signin.unlock_accounts(names)
        self.message_user(
            request,
            f"Sign-in unlocked for {len(names)} account(s). A locked address stays locked: "
            "see Axes > Access attempts.",
            messages.SUCCESS,
        )


admin.site.unregister(User)
admin.site.register(User, UnlockingUserAdmin)
