"""How drf-spectacular describes the API key scheme (imported by api.urls, so a worker
process never loads drf-spectacular's machinery)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class APIKeyScheme(OpenApiAuthenticationExtension):
    target_class = "api.auth.APIKeyAuthentication"
    name = "ApiKeyAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Api-Key <prefix>.<secret>`, as shown once when the key is created.",
        }
