from django.contrib import admin
from django.urls import path

from cerniq import health

urlpatterns = [
    path("admin/", admin.site.urls),
    path("health", health.health, name="health"),
]
