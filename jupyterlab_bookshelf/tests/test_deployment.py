"""Links and the publish prefix under a JupyterHub and on a server of its own."""

from jupyterlab_bookshelf.deployment import (
    hub_user,
    link_base,
    public_origin,
    resolve_publish_prefix,
)

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


def test_the_origin_is_the_requests_own_without_a_proxy():
    assert public_origin("http", "127.0.0.1:8888", {}) == "http://127.0.0.1:8888"
    assert public_origin("https", "lab.example.org", {}) == "https://lab.example.org"


def test_a_proxy_that_ends_tls_says_so_in_x_forwarded_headers():
    headers = {"X-Forwarded-Proto": "https", "X-Forwarded-Host": "lab.example.org"}
    assert public_origin("http", "127.0.0.1:8888", headers) == "https://lab.example.org"
    # Only the scheme, the Host header passed on as it came (nginx's proxy_set_header Host).
    assert (
        public_origin("http", "lab.example.org:8443", {"X-Forwarded-Proto": "https"})
        == "https://lab.example.org:8443"
    )
    assert public_origin("http", "lab.example.org", {"X-Scheme": "https"}) == (
        "https://lab.example.org"
    )


def test_of_several_proxies_the_first_hop_is_the_callers():
    headers = {"X-Forwarded-Proto": "https, http", "X-Forwarded-Host": "a.example, b.internal"}
    assert public_origin("http", "10.0.0.5:8888", headers) == "https://a.example"


def test_the_standard_forwarded_header_comes_first():
    headers = {
        "Forwarded": 'for=192.0.2.60;proto=https;host="lab.example.org", for=10.0.0.1;proto=http',
        "X-Forwarded-Proto": "http",
    }
    assert public_origin("http", "10.0.0.5:8888", headers) == "https://lab.example.org"
    assert public_origin("http", "h:1", {"Forwarded": "for=192.0.2.60"}) == "http://h:1"


def test_a_scheme_that_is_not_http_or_https_is_ignored():
    assert public_origin("http", "h:1", {"X-Forwarded-Proto": "javascript"}) == "http://h:1"
    assert public_origin("http", "h:1", {"X-Forwarded-Proto": ""}) == "http://h:1"


def test_a_forwarded_host_is_a_host_and_port_or_nothing():
    assert public_origin("http", "h:1", {"X-Forwarded-Host": "[::1]:8443"}) == "http://[::1]:8443"
    for bad in ("evil.example/path?", "a@b", "a b", "h:1/x"):
        assert public_origin("http", "h:1", {"X-Forwarded-Host": bad}) == "http://h:1"
