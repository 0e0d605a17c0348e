"""Routes of the sequences and templates pages (included by outreach/urls.py)."""

from django.urls import path

from console.views import brochures, sequences, template_ab, templates

urlpatterns: list = [
    path("sequences/", sequences.sequence_list, name="sequences"),
    path("sequences/new/", sequences.sequence_edit, name="sequence_new"),
    path("sequences/<int:pk>/", sequences.sequence_edit, name="sequence"),
    path("templates/", templates.template_list, name="templates"),
    path("templates/new/", templates.template_edit, name="template_new"),
    path("templates/preview/", templates.template_preview, name="template_preview"),
    path("templates/<int:pk>/", templates.template_edit, name="template"),
    # The A/B winner block of a template's page (outreach.ab_winners).
    path("templates/<int:pk>/ab/evaluate/", template_ab.evaluate, name="template_ab_evaluate"),
    path("templates/<int:pk>/ab/confirm/", template_ab.confirm, name="template_ab_confirm"),
    path("templates/<int:pk>/ab/dismiss/", template_ab.dismiss, name="template_ab_dismiss"),
    # Templates drafted from a brochure or price list (outreach.brochures).
    path("templates/brochures/", brochures.brochure_list, name="brochures"),
    path("templates/brochures/<int:pk>/", brochures.brochure_detail, name="brochure"),
    path("templates/brochures/<int:pk>/status/", brochures.brochure_status, name="brochure_status"),
    path("templates/brochures/<int:pk>/file/", brochures.brochure_file, name="brochure_file"),
    path("templates/brochures/<int:pk>/retry/", brochures.brochure_retry, name="brochure_retry"),
]
