"""Passwords (and attributes marked secret) never reach a message, an exception or a repr.

Every way a connect can fail (the driver manager echoing a malformed string, an unknown driver,
a wrong password, a driver that cannot connect) is crossed with secrets holding the characters
connection strings treat specially and with every spelling of the attribute. pyodbc leaves
passwords in its messages: these tests are fastodbc's.
"""

from __future__ import annotations

import re
import secrets
import subprocess
import sys
import traceback

import pytest

from profiles import with_credentials

pytestmark = pytest.mark.fastodbc_only(reason="pyodbc leaves passwords in its messages")

LOGIN = "fastodbc_login"

SECRETS = {
    "plain": "Hunter2Zq",
    "semicolon": "Qz7;Kq=Wv8",
    "braces": "{Br9}Ac5}}",
    "spaces": "  Sp4 Ac6  ",
    "unicode": "Pä55wörd€",
    # Filled in per backend: the start of the driver's name, so the secret is also a part of
    # other text in the connection string and the message.
    "substring": "",
}

# (how the secret is given, attribute name): in the string in any case, or as a keyword.
SPELLINGS = [
    ("string", "PWD"),
    ("string", "Pwd"),
    ("string", "pwd"),
    ("string", "Password"),
    ("string", "PASSWORD"),
    ("keyword", "pwd"),
    ("keyword", "password"),
    ("keyword", "PWD"),
]


def braced(value: str) -> str:
    return "{" + value.replace("}", "}}") + "}"


def driver_of(connstr: str) -> str:
    match = re.match(r"\s*driver\s*=\s*\{([^}]*)\}", connstr, re.IGNORECASE)
    assert match, f"the profile's connection string does not start with Driver={{...}}: {connstr}"
    return match.group(1)


def secret_for(name: str, backend) -> str:
    return SECRETS[name] or driver_of(backend.connstr)[:4]


def visible_parts(secret: str) -> list[str]:
    """What of ``secret`` must not be seen: it whole and each run of 3+ letters or digits."""
    return [secret, secret.strip(), *(p for p in re.split(r"\W+", secret) if len(p) >= 3)]


def as_value(part: str) -> re.Pattern[str]:
    """``part`` where it stands as a value: not continued by a letter, digit or ``_`` (the
    same secret inside another word, such as a driver's name, is that word's)."""
    before = r"(?<!\w)" if re.match(r"\w", part) else ""
    after = r"(?!\w)" if re.search(r"\w$", part) else ""
    return re.compile(before + re.escape(part) + after)


def exception_texts(exc: BaseException) -> list[str]:
    texts = ["".join(traceback.format_exception(type(exc), exc, exc.__traceback__))]
    while exc is not None:
        texts += [str(exc), repr(exc), *(str(a) for a in exc.args)]
        exc = exc.__cause__ or exc.__context__
    return texts


def assert_hidden(exc: BaseException, secret: str) -> None:
    for text in exception_texts(exc):
        for part in visible_parts(secret):
            assert not as_value(part).search(text), f"{part!r} of the secret is in {text!r}"


def connect_failing(db, connstr: str, how: str, name: str, secret: str) -> BaseException:
    """Connects with ``secret`` given as ``how``/``name``; returns the error it must raise."""
    if how == "string":
        args, kwargs = (connstr.rstrip(";") + f";{name}={braced(secret)}",), {}
    else:
        args, kwargs = (connstr,), {name: secret}
    with pytest.raises(db.Error) as exc:
        db.connect(*args, **kwargs).close()
    assert exc.value.args[0], exc.value.args  # still an error with its SQLSTATE
    return exc.value


@pytest.fixture
def login(db, backend):
    """login(password) -> a connection string for a login with that password (created, and
    dropped after the test); skips on databases without logins."""
    created = []

    def run(sql: str) -> None:
        admin = db.connect(backend.connstr, autocommit=True)
        try:
            admin.cursor().execute(sql)
        finally:
            admin.close()

    def make(password: str) -> str:
        if backend.create_login_sql is None:
            pytest.skip(f"{backend.name} has no logins")
        run(backend.drop_login_sql.format(user=LOGIN))
        run(
            backend.create_login_sql.format(
                user=LOGIN, password=password.replace("'", "''"), database=backend.database
            )
        )
        created.append(LOGIN)
        try:
            db.connect(with_credentials(backend.connstr, LOGIN, password + "-wrong")).close()
        except db.Error:
            pass
        else:
            pytest.fail(f"the test server lets {LOGIN} in with a wrong password (pg_hba.conf?)")
        return with_credentials(backend.connstr, LOGIN, password)

    yield make
    if created:
        run(backend.drop_login_sql.format(user=LOGIN))


def open_brace(connstr: str) -> str:
    """``connstr`` with its driver's closing brace left out: the driver manager reads the rest
    of the string as the driver's name and echoes it ("Can't open lib 'X;...;PWD=...'").
    Other braced values go (their closing brace would end the name early)."""
    driver, *rest = [p for p in connstr.split(";") if p.strip()]
    kept = [p for p in rest if not p.split("=", 1)[-1].lstrip().startswith("{")]
    return ";".join([driver.replace("}", "", 1), *kept]) + ";"


def failing_connstr(way: str, backend, login) -> str:
    if way == "open_brace":
        return open_brace(backend.connstr)
    if way == "unknown_driver":
        return backend.connstr.replace(driver_of(backend.connstr), "No Such Driver fastodbc", 1)
    if way == "wrong_password":
        return login("Right-Pw-1")
    if backend.unreachable_connstr is None:
        pytest.skip(f"{backend.name} has no unreachable connection string")
    return backend.unreachable_connstr


@pytest.mark.parametrize("secret_name", SECRETS)
@pytest.mark.parametrize("way", ["open_brace", "unknown_driver", "wrong_password", "unreachable"])
def test_connect_errors_never_show_the_secret(db, backend, login, way, secret_name):
    secret = secret_for(secret_name, backend)
    connstr = failing_connstr(way, backend, login)
    if way == "wrong_password":
        connstr = connstr[: connstr.rfind("PWD=")]  # the secret replaces the right password
    for how, name in SPELLINGS:
        assert_hidden(connect_failing(db, connstr, how, name, secret), secret)


def test_the_open_brace_message_still_says_what_failed(db, backend):
    connstr = open_brace(backend.connstr)
    exc = connect_failing(db, connstr, "string", "PWD", "Hunter2Zq")
    assert driver_of(backend.connstr) in exc.args[1]
    assert re.search(r"PWD=\{?\*\*\*", exc.args[1]), exc.args[1]


@pytest.mark.parametrize("length", range(440, 500, 2))
def test_a_message_cut_inside_the_secret_shows_none_of_it(db, length):
    # unixODBC cuts its "Can't open lib '<name>'" message at ~500 characters: here the cut
    # falls before, inside and after "PWD=<secret>".
    secret = "Zq9Kx7Vw4Mn"
    exc = connect_failing(db, "Driver={" + "a" * length, "string", "PWD", secret)
    for text in exception_texts(exc):
        for i in range(len(secret) - 2):
            assert secret[i : i + 3] not in text, (length, text[-60:])


def test_the_wrong_password_is_refused_and_hidden(db, backend, login):
    connstr = login("Right-Pw-1")
    wrong = "Wr0ng;Pw{x}"
    with pytest.raises(db.Error) as exc:
        db.connect(with_credentials(backend.connstr, LOGIN, wrong))
    assert exc.value.args[0][:2] in ("08", "28"), exc.value.args
    assert_hidden(exc.value, wrong)
    db.connect(connstr).close()


@pytest.mark.parametrize("password", ["Qz7;Kq=Wv8", "Sp4 Ac6", "Pä55wörd€"])
def test_a_login_with_such_a_password_connects(db, backend, login, password):
    # The same secrets, right this time: redacting them must not change what is sent.
    connstr = login(password)
    cnxn = db.connect(connstr.rsplit("PWD=", 1)[0], pwd=password)
    try:
        assert cnxn.cursor().execute("SELECT 1").fetchval() == 1
    finally:
        cnxn.close()


def statement_error(db, connstr: str, name: str) -> BaseException:
    cnxn = db.connect(connstr)
    try:
        with pytest.raises(db.Error) as exc:
            cnxn.cursor().execute(f"SELECT * FROM {name}")
        return exc.value
    finally:
        cnxn.close()


def test_driver_messages_of_an_open_connection_hide_its_password(db, backend, login):
    # The driver echoes the table name; the password is that name. While the connection with
    # that password is open, its messages hide it; after, another connection's do not.
    password = "fdbsecret" + secrets.token_hex(4)
    if backend.create_login_sql is None:
        connstr = with_credentials(backend.connstr, LOGIN, password)  # the driver ignores it
    else:
        connstr = login(password)
    exc = statement_error(db, connstr, password)
    assert_hidden(exc, password)
    assert "***" in exc.args[1]
    assert password in statement_error(db, backend.connstr, password).args[1]


# Passwords that are also parts of every message: digits of native codes and versions, a
# SQLSTATE's letters, words of the messages, and a long random one.
WEAK_PASSWORDS = ["1", "7", "46", "114", "S02", "sqla", "does", "table", "exist", "Zq9Kx7Vw4MnB8pL2x"]


def message_parts(exc: BaseException) -> tuple[str, list[str], list[str]]:
    """What clients read from an error: its SQLSTATE, its bracketed [driver][server] prefixes
    and SQLSTATEs, and its parenthesised native codes (SQLAlchemy's MariaDB dialect finds the
    error code with this pattern)."""
    text = exc.args[1]
    return exc.args[0], re.findall(r"\[[^\]]*\]", text), re.findall(r"\((-?\d+)\)", text)


@pytest.mark.parametrize("password", WEAK_PASSWORDS)
def test_a_weak_password_leaves_codes_prefixes_and_names_intact(db, backend, login, password):
    # Issue 29: with password 1 a MariaDB error read "[ma-3.***.***5]... no_such_table_******46
    # (******46)". The same error from a connection whose secrets are elsewhere is the oracle.
    name = "no_such_table_1146"
    expected = statement_error(db, backend.connstr, name)
    exc = statement_error(db, login(password), name)
    assert message_parts(exc) == message_parts(expected), (exc.args, expected.args)
    assert name in exc.args[1], exc.args
    if len(password) >= 4 and not password.isdigit():
        assert_hidden(exc, password)
    # A wrong password of the same kind: the server's refusal keeps its code too.
    with pytest.raises(db.Error) as refused:
        db.connect(with_credentials(backend.connstr, LOGIN, password + "x"))
    with pytest.raises(db.Error) as refused_other:
        db.connect(with_credentials(backend.connstr, LOGIN, "Other-Pw-9"))
    assert message_parts(refused.value) == message_parts(refused_other.value)


def test_server_messages_hide_the_password(db, backend, login):
    if backend.notice_sql is None:
        pytest.skip(f"{backend.name} sends no server messages")
    password = "fdbnotice" + secrets.token_hex(4)
    connstr = login(password)
    cnxn = db.connect(connstr)
    try:
        cursor = cnxn.cursor()
        cursor.execute(backend.notice_sql.format(text=f"the password is {password}"))
        assert cursor.messages, "no message arrived"
        for state, text in cursor.messages:
            assert password not in text and password not in state
        assert any("the password is ***" in text for _, text in cursor.messages)
    finally:
        cnxn.close()


def test_attributes_marked_secret(db, backend, monkeypatch):
    connstr = open_brace(backend.connstr) + "AppToken=Tk4Zq9Vw"
    with pytest.raises(db.Error) as exc:
        db.connect(connstr)
    assert "Tk4Zq9Vw" in exc.value.args[1]  # not a secret until marked
    monkeypatch.setattr(db, "secret_attributes", {*db.secret_attributes, "apptoken"})
    for how, name in [("string", "AppToken"), ("string", "APPTOKEN"), ("keyword", "AppToken")]:
        base = open_brace(backend.connstr)
        assert_hidden(connect_failing(db, base, how, name, "Tk4Zq9Vw"), "Tk4Zq9Vw")


def test_repr_of_connection_and_cursor(db, backend, login):
    password = "Rp7Zq9Kx"
    if backend.create_login_sql is None:
        connstr = with_credentials(backend.connstr, LOGIN, password)
    else:
        connstr = login(password)
    cnxn = db.connect(connstr)
    try:
        cursor = cnxn.cursor()
        for text in (repr(cnxn), str(cnxn), repr(cursor), str(cursor)):
            assert password not in text
    finally:
        cnxn.close()


def test_a_lone_surrogate_is_refused_without_the_string(db, backend):
    secret = SECRETS["plain"]
    with pytest.raises(db.InterfaceError) as exc:
        db.connect(backend.connstr, pwd=secret + "\ud800")
    assert exc.value.__context__ is None and exc.value.__cause__ is None
    assert_hidden(exc.value, secret)


def test_an_overlong_driver_name_raises_instead_of_aborting(db):
    # unixODBC 2.3.11 aborts the process ("buffer overflow detected") for a DRIVER value
    # longer than 1,000 bytes: run it where an abort cannot take the test session with it.
    code = (
        "import sys, importlib\n"
        f"db = importlib.import_module({db.__name__!r})\n"
        "for length in (1000, 1001, 5000):\n"
        "    for text in ('Driver={' + 'a' * length + '};PWD=Hunter2Zq',\n"
        "                 'Driver={' + 'a' * length + ';PWD=Hunter2Zq',\n"
        "                 'DRIVER=' + 'a' * length):\n"
        "        try:\n"
        "            db.connect(text)\n"
        "        except db.InterfaceError as e:\n"
        "            assert 'Hunter2Zq' not in repr(e), e\n"
        "print('done')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "done"
