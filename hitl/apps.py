from django.apps import AppConfig


class HitlConfig(AppConfig):
    name = "hitl"
    verbose_name = "Human review"

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from cerniq.metrics import collectors
        from hitl import metrics, person_data, responses
        from outreach.models import Message

        collectors.register("review", metrics.collect)
        person_data.register_sections()  # the data-subject export's review rows
        # A message a person wrote answers the lead's waiting reply (hitl.responses).
        post_save.connect(
            responses.on_message_saved, sender=Message, dispatch_uid="hitl-reply-responses"
        )
