"""The library's own, tenant-less APIKey is not used: keys are cerniq.TenantAPIKey."""

from django.contrib import admin
from rest_framework_api_key.models import APIKey

if admin.site.is_registered(APIKey):
    admin.site.unregister(APIKey)
