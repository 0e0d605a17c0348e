"""gunicorn's logger with our masks (gunicorn.conf.py selects it): webhook tokens, secret
query parameters (`?api_key=***`), phone numbers and emails never reach its access or error
log.

gunicorn's loggers do not propagate to the root logger, so settings.LOGGING does not reach
them; the mask filter goes on the loggers themselves. It renders each line once, masked,
whatever `access_log_format` says. The bare query string atoms (`%(q)s`,
`%({query_string}e)s`), which carry no `?` for the line mask to find, are masked first.
With LOG_FORMAT json (the default when DEBUG is off: cerniq.logging.log_format) both logs
write one JSON object per line, like the application's own log.
"""

from __future__ import annotations

from gunicorn.glogging import Logger

from cerniq.log_context import ContextFilter
from cerniq.logging import JSONFormatter, MaskPIIFilter, log_format, mask_query_string


class MaskingLogger(Logger):
    _mask = MaskPIIFilter()
    _context = ContextFilter()  # the request's id: the access line is written before the end

    def setup(self, cfg) -> None:
        super().setup(cfg)  # also on HUP: addFilter ignores a filter it already has
        for log in (self.error_log, self.access_log):
            log.addFilter(self._mask)
            log.addFilter(self._context)
        if log_format() == "json":
            for handler in (*self.error_log.handlers, *self.access_log.handlers):
                handler.setFormatter(JSONFormatter())

    def atoms(self, resp, req, environ, request_time) -> dict:
        atoms = super().atoms(resp, req, environ, request_time)
        for key in ("q", "{query_string}e"):
            if atoms.get(key):
                atoms[key] = mask_query_string(atoms[key])
        return atoms
