# Smoke test: Django's system checks (`manage.py check`) and migrations on a minimal project: the
# contrib apps plus the installed apps it knows of (Django REST framework and its token app), an
# in-memory SQLite database.
import importlib.util
from importlib.metadata import version

import django
from django.conf import settings

apps = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
]
extra = [
    a
    for a in ("rest_framework", "rest_framework.authtoken")
    if importlib.util.find_spec(a.split(".")[0])
]
settings.configure(
    DEBUG=False,
    SECRET_KEY="planner-smoke",
    ALLOWED_HOSTS=["*"],
    USE_TZ=True,
    ROOT_URLCONF=__name__,
    INSTALLED_APPS=apps + extra,
    DEFAULT_AUTO_FIELD="django.db.models.AutoField",
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
    MIDDLEWARE=[
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "django.contrib.messages.middleware.MessageMiddleware",
    ],
    TEMPLATES=[
        {
            "BACKEND": "django.template.backends.django.DjangoTemplates",
            "APP_DIRS": True,
            "OPTIONS": {
                "context_processors": [
                    "django.template.context_processors.request",
                    "django.contrib.auth.context_processors.auth",
                    "django.contrib.messages.context_processors.messages",
                ]
            },
        }
    ],
)
urlpatterns = []
django.setup()
from django.core.management import call_command  # noqa: E402

call_command("check", fail_level="ERROR")
call_command("migrate", run_syncdb=True, verbosity=0, interactive=False)
print(
    "Django %s: check and migrate passed (%s)"
    % (version("django"), ", ".join(extra) or "contrib apps only")
)
