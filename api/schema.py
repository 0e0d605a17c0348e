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


def document_body_limits(result: dict, generator: object, request: object, public: bool) -> dict:
    """drf-spectacular postprocessing hook: every operation that takes a body may answer 413
    (over the size its parser reads: api.parsers, cerniq.http_errors), so each says so."""
    too_large = {
        "description": "The request body is larger than the endpoint takes.",
        "content": {
            "application/json": {
                "schema": {"$ref": "#/components/schemas/Error"},
                "examples": {
                    "TooLarge": {
                        "value": {
                            "error": {
                                "code": "too_large",
                                "message": "The request is larger than 2.5 MB, the most "
                                "this address takes.",
                                "fields": {},
                            }
                        },
                        "summary": "too_large",
                    }
                },
            }
        },
    }
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            if isinstance(operation, dict) and "requestBody" in operation:
                operation.setdefault("responses", {}).setdefault("413", too_large)
    return result
