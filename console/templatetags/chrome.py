"""`{% topbar %}`: the top bar of every operator page (console.topbar)."""

from typing import Any, cast

from django import template
from django.utils.safestring import SafeString

from console.topbar import topbar as render_topbar

register = template.Library()


@register.simple_tag(takes_context=True)
def topbar(context: template.Context) -> SafeString:
    return render_topbar(cast(dict[str, Any], context.flatten()))
