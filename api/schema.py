"""How drf-spectacular describes the API key scheme (imported when the app is ready)."""

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
