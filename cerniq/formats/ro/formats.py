"""Romanian formats: day.month.year, 24-hour clock, dot for thousands (docs/locale.md)."""

DATE_FORMAT = "d.m.Y"
DATETIME_FORMAT = "d.m.Y, H:i"
SHORT_DATE_FORMAT = "d.m.Y"
SHORT_DATETIME_FORMAT = "d.m.Y, H:i"
TIME_FORMAT = "H:i"
MONTH_DAY_FORMAT = "d.m"  # Django spells month names capitalised; Romanian does not
YEAR_MONTH_FORMAT = "F Y"
FIRST_DAY_OF_WEEK = 1  # Monday
DECIMAL_SEPARATOR = ","
THOUSAND_SEPARATOR = "."
NUMBER_GROUPING = 3
