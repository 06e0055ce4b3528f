"""The new_session message with the memoized theme is Streamlit's, byte for byte
(ui/shared/session_message.py)."""
from __future__ import annotations

import pytest
from streamlit import config
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.runtime import app_session

from ui.shared import session_message

SECTIONS = ["theme", "theme.light", "theme.dark", "theme.sidebar", "theme.light.sidebar", "theme.dark.sidebar"]


def _theme(populate) -> bytes:
    msg = ForwardMsg()
    theme = msg.new_session.custom_theme
    populate(theme)
    populate(theme.light, "theme.light")
    populate(theme.dark, "theme.dark")
    populate(theme.sidebar, "theme.sidebar")
    populate(theme.light.sidebar, "theme.light.sidebar")
    populate(theme.dark.sidebar, "theme.dark.sidebar")
    return msg.SerializeToString()


@pytest.fixture
def original():
    session_message.install()
    populate = app_session._populate_theme_msg
    return getattr(populate, "__wrapped__", populate)


def test_install_wraps_streamlits_function_once(original):
    assert session_message.installed()
    first = app_session._populate_theme_msg
    assert first is not original and first.__wrapped__ is original
    assert session_message.install() and app_session._populate_theme_msg is first


def test_the_memoized_message_equals_streamlits_twice_over(original):
    expected = _theme(original)
    assert _theme(app_session._populate_theme_msg) == expected  # built
    assert _theme(app_session._populate_theme_msg) == expected  # copied


def test_an_unset_section_stays_unset(original):
    msg = ForwardMsg()
    for section in SECTIONS:
        if all(v is None for v in config.get_options_for_section(section).values()):
            app_session._populate_theme_msg(msg.new_session.custom_theme.dark, section)
            assert not msg.new_session.HasField("custom_theme")
            break
    else:
        pytest.skip("every theme section is set here")


def test_a_new_config_reading_is_built_afresh(original, monkeypatch):
    """Reading the config files again (a new options object) builds the sections again:
    a theme value set there reaches the message."""
    before = _theme(app_session._populate_theme_msg)
    options = dict(config.get_config_options())
    option = options["theme.primaryColor"]
    changed = type(option)(option.key, description=option.description, default_val=option.default_val,
                           type_=option.type)
    changed.set_value("#123456", "test")
    options["theme.primaryColor"] = changed
    monkeypatch.setattr(config, "_config_options", options)
    after = _theme(app_session._populate_theme_msg)
    assert after == _theme(original) and after != before
    msg = ForwardMsg()
    msg.ParseFromString(after)
    assert msg.new_session.custom_theme.primary_color == "#123456"


def test_no_theme_option_can_change_at_run_time():
    """Why the config object's identity is a sufficient key."""
    assert not [k for k, o in config.get_config_options().items() if o.scriptable and k.startswith("theme")]
