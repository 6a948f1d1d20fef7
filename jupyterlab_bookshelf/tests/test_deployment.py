"""Links and the publish prefix under a JupyterHub and on a server of its own."""

from jupyterlab_bookshelf.deployment import hub_user, link_base, resolve_publish_prefix

HUB = {
    "JUPYTERHUB_USER": "ana",
    "JUPYTERHUB_BASE_URL": "/",
    "JUPYTERHUB_SERVICE_PREFIX": "/user/ana/",
}


def test_outside_a_hub_links_point_into_this_server():
    assert hub_user({}) is None
    assert link_base("/", {}) == ("/", "server")
    assert link_base("/jupyter/", {}) == ("/jupyter/", "server")


def test_under_a_hub_links_go_through_user_redirect_never_into_the_users_server():
    base, form = link_base("/user/ana/", HUB)
    assert (base, form) == ("/hub/user-redirect/", "hub")
    assert "/user/ana/" not in base


def test_a_hub_below_a_base_url_and_on_another_host():
    environ = {
        **HUB,
        "JUPYTERHUB_BASE_URL": "/jhub/",
        "JUPYTERHUB_HOST": "https://hub.example.org/",
    }
    assert link_base("/jhub/user/ana/", environ) == (
        "https://hub.example.org/jhub/hub/user-redirect/",
        "hub",
    )


def test_the_publish_prefix_names_the_hub_user():
    assert resolve_publish_prefix("users/{username}/", HUB) == "users/ana/"
    assert resolve_publish_prefix("{username}/a/{username}/", HUB) == "ana/a/ana/"
    assert resolve_publish_prefix("team/", HUB) == "team/"
    # Outside a hub the placeholder stays; the settings check reports it.
    assert resolve_publish_prefix("users/{username}/", {}) == "users/{username}/"


def test_under_a_hub_the_features_show_the_users_own_prefix(monkeypatch):
    from jupyterlab_bookshelf.settings import features

    settings = {
        "region": "us-east-1",
        "credentials": {"mode": "session"},
        "publishBucket": "published",
        "publishPrefix": "users/{username}/",
        "overwritePolicy": "confirm",
        "allowedBuckets": [],
    }
    monkeypatch.delenv("JUPYTERHUB_USER", raising=False)
    alone = features(settings, [])
    assert alone["publish_valid"] is False
    assert "{username}" in alone["settings_problem"]
    monkeypatch.setenv("JUPYTERHUB_USER", "ana")
    on_hub = features(settings, [])
    assert on_hub["publish_valid"] is True
    assert on_hub["publish_prefix"] == "users/ana/"
    assert on_hub["settings_problem"] == ""
