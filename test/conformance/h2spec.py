# h2spec's published cases for RFC 9113 (its "http2" group) and RFC 7541 ("hpack"), plus a
# few of its "generic" ones, against an HTTP/2 server over h2c on 127.0.0.1. h2spec itself is
# not installable here; this follows its case list and its verdicts, written with the h2
# project's own Python libraries (Debian's python3-h2: h2 for the honest client, hpack for
# header blocks, frames by hand where a case needs a broken one).
#
#   python3 h2spec.py --list          the cases, one JSON line each: {"id", "title"}
#   python3 h2spec.py PORT            runs them: one JSON line each: {"id", "ok", "detail"}
#
# A connection error passes when the server sends GOAWAY with an expected code (h2spec also
# passes a bare close; this does only where noted); a stream error passes on RST_STREAM or
# GOAWAY with an expected code. Where a closed stream's id is used again, PROTOCOL_ERROR is
# accepted beside STREAM_CLOSED: serve keeps no record of every closed stream, so such an id
# is to it one below the newest (§5.1.1), as Go's server treats it. Each wait has a safety net (SAFETY seconds), never a verdict.
import json
import socket
import struct
import sys

import h2.config
import h2.connection
import h2.events
from hpack import Encoder

SAFETY = 10.0
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM, ACK, END_HEADERS, PADDED, PRIORITY_FLAG = 0x1, 0x1, 0x4, 0x8, 0x20
NO_ERROR, PROTOCOL_ERROR, INTERNAL_ERROR, FLOW_CONTROL_ERROR, SETTINGS_TIMEOUT, STREAM_CLOSED, FRAME_SIZE_ERROR, REFUSED_STREAM, CANCEL, COMPRESSION_ERROR = range(10)

PORT = 0


def frame(type_, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([type_, flags]) + struct.pack(">I", stream) + payload


def settings(*pairs):
    return frame(SETTINGS, 0, 0, b"".join(struct.pack(">HI", k, v) for k, v in pairs))


class Closed(Exception):
    pass


class Conn:
    """A raw connection past the handshake: preface and SETTINGS sent, the server's SETTINGS acked, ours acked."""

    def __init__(self, handshake=True):
        self.sock = socket.create_connection(("127.0.0.1", PORT), timeout=SAFETY)
        self.buf = b""
        self.encoder = Encoder()
        self.closed = False
        self.peer_settings = {}
        if handshake:
            self.send(PREFACE + settings())
            got_settings = got_ack = False
            while not (got_settings and got_ack):
                t, f, s, p = self.read()
                if t == SETTINGS and not f & ACK:
                    for i in range(0, len(p), 6):
                        k, v = struct.unpack(">HI", p[i:i + 6])
                        self.peer_settings[k] = v
                    self.send(frame(SETTINGS, ACK, 0))
                    got_settings = True
                elif t == SETTINGS:
                    got_ack = True

    def send(self, data):
        try:
            self.sock.sendall(data)
        except OSError:
            pass  # the server may already have closed: the verdict reads what it sent

    def read(self):
        while True:
            if len(self.buf) >= 9:
                length = int.from_bytes(self.buf[:3], "big")
                if len(self.buf) >= 9 + length:
                    t, f = self.buf[3], self.buf[4]
                    s = struct.unpack(">I", self.buf[5:9])[0] & 0x7FFFFFFF
                    p = self.buf[9:9 + length]
                    self.buf = self.buf[9 + length:]
                    return t, f, s, p
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise TimeoutError("nothing within the safety net")
            except OSError:
                chunk = b""
            if not chunk:
                self.closed = True
                raise Closed()
            self.buf += chunk

    def headers(self, stream, fields=None, flags=END_HEADERS | END_STREAM, extra=(), huffman=True):
        block = self.encoder.encode(list(fields or request()) + list(extra), huffman=huffman)
        self.send(frame(HEADERS, flags, stream, block))

    def close(self):
        self.sock.close()


def request(method="GET", path="/", extra=()):
    return [(":method", method), (":scheme", "http"), (":path", path), (":authority", "127.0.0.1:%d" % PORT)] + list(extra)


def literal(fields):
    """A header block of literal fields without indexing, as given (no validation, no Huffman)."""
    out = b""
    for name, value in fields:
        name, value = name.encode("latin1"), value.encode("latin1")
        out += b"\x00" + bytes([len(name)]) + name + bytes([len(value)]) + value
    return out


# ---- verdicts ----

def conn_error(c, *codes, close_ok=False):
    try:
        while True:
            t, f, s, p = c.read()
            if t == GOAWAY:
                code = struct.unpack(">I", p[4:8])[0]
                return (code in codes, "GOAWAY %d" % code)
    except Closed:
        return (close_ok, "closed without GOAWAY")
    except TimeoutError as e:
        return (False, str(e))


def stream_error(c, *codes):
    try:
        while True:
            t, f, s, p = c.read()
            if t == GOAWAY:
                code = struct.unpack(">I", p[4:8])[0]
                return (code in codes, "GOAWAY %d" % code)
            # Another RST_STREAM (an answer's own end, say) is not the verdict: as h2spec, read on.
            if t == RST_STREAM and struct.unpack(">I", p)[0] in codes:
                return (True, "RST_STREAM %d" % struct.unpack(">I", p)[0])
    except Closed:
        return (False, "closed without RST_STREAM or GOAWAY")
    except TimeoutError as e:
        return (False, str(e))


def ping_ack(c, data=b"h2spec!!"):
    """No error: a PING sent now is answered (what came before it broke nothing)."""
    c.send(frame(PING, 0, 0, data))
    try:
        while True:
            t, f, s, p = c.read()
            if t == GOAWAY:
                return (False, "GOAWAY %d" % struct.unpack(">I", p[4:8])[0])
            if t == PING and f & ACK and p == data:
                return (True, "PING ACK")
    except (Closed, TimeoutError) as e:
        return (False, repr(e))


def response(c, stream):
    try:
        while True:
            t, f, s, p = c.read()
            if t == GOAWAY:
                return (False, "GOAWAY %d" % struct.unpack(">I", p[4:8])[0])
            if t == RST_STREAM and s == stream:
                return (False, "RST_STREAM %d" % struct.unpack(">I", p)[0])
            if t == HEADERS and s == stream:
                return (True, "HEADERS")
    except (Closed, TimeoutError) as e:
        return (False, repr(e))


def data_on(c, stream):
    """The first DATA frame of `stream`'s answer: its length."""
    try:
        while True:
            t, f, s, p = c.read()
            if t == GOAWAY:
                return None
            if t == DATA and s == stream:
                return len(p)
    except (Closed, TimeoutError):
        return None


CASES = []


def case(id_, title):
    def register(fn):
        CASES.append((id_, title, fn))
        return fn
    return register


# ---- generic (a few) ----

@case("generic/1/1", "Sends a client connection preface")
def _(c):
    # Conn() got through the handshake: the server's SETTINGS came, and its ACK of ours.
    return (True, "SETTINGS exchanged")


@case("generic/2/1", "Sends a PRIORITY frame on idle stream")
def _(c):
    c.send(frame(PRIORITY, 0, 1, struct.pack(">IB", 0, 15)))
    return ping_ack(c)


@case("generic/3.1/1", "Sends a DATA frame")
def _(c):
    c.headers(1, request("POST"), flags=END_HEADERS)
    c.send(frame(DATA, END_STREAM, 1, b"test"))
    return response(c, 1)


@case("generic/3.1/3", "Sends a DATA frame with padding")
def _(c):
    c.headers(1, request("POST"), flags=END_HEADERS)
    c.send(frame(DATA, END_STREAM | PADDED, 1, b"\x08test" + b"\x00" * 8))
    return response(c, 1)


@case("generic/3.2/3", "Sends a HEADERS frame with priority")
def _(c):
    c.send(frame(HEADERS, END_HEADERS | END_STREAM | PRIORITY_FLAG, 1, struct.pack(">IB", 0, 255) + c.encoder.encode(request())))
    return response(c, 1)


@case("generic/3.10/1", "Sends a CONTINUATION frame")
def _(c):
    block = c.encoder.encode(request())
    c.send(frame(HEADERS, END_STREAM, 1, block[:5]) + frame(CONTINUATION, END_HEADERS, 1, block[5:]))
    return response(c, 1)


@case("generic/4/1", "Sends a GET request (with h2, the h2 project's client)")
def _(c):
    c.close()
    sock = socket.create_connection(("127.0.0.1", PORT), timeout=SAFETY)
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
    conn.initiate_connection()
    conn.send_headers(1, request(), end_stream=True)
    sock.sendall(conn.data_to_send())
    status = None
    while True:
        data = sock.recv(65536)
        if not data:
            return (False, "closed")
        for event in conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived):
                status = dict(event.headers).get(":status")
            if isinstance(event, h2.events.StreamEnded) and event.stream_id == 1:
                sock.close()
                return (status is not None, "status %s" % status)
            if isinstance(event, h2.events.DataReceived):
                conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
        sock.sendall(conn.data_to_send())


@case("generic/4/3", "Sends a POST request with trailers")
def _(c):
    c.headers(1, request("POST"), flags=END_HEADERS)
    c.send(frame(DATA, 0, 1, b"test"))
    c.headers(1, [("x-trailer", "yes")], flags=END_HEADERS | END_STREAM)
    return response(c, 1)


@case("generic/5/1", "Sends a dynamic table size update")
def _(c):
    c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, b"\x20" + literal(request())))
    return response(c, 1)


# ---- RFC 9113 (h2spec's http2 group) ----

@case("http2/3.5/2", "Sends invalid connection preface (closed, or answered as HTTP/1.1)")
def _(c):
    c.close()
    c = Conn(handshake=False)
    c.send(b"INVALID CONNECTION PREFACE\r\n\r\n")
    return conn_error(c, PROTOCOL_ERROR, close_ok=True)


@case("http2/4.1/1", "Sends a frame with unknown type")
def _(c):
    c.send(frame(0x16, 0, 0, b"\x00" * 8))
    return ping_ack(c)


@case("http2/4.1/2", "Sends a frame with undefined flag")
def _(c):
    c.send(frame(PING, 0x16, 0, b"\x00" * 8))
    return ping_ack(c, b"undefflg")


@case("http2/4.1/3", "Sends a frame with reserved field bit")
def _(c):
    c.send(struct.pack(">I", 8)[1:] + bytes([PING, 0]) + struct.pack(">I", 0x80000000) + b"\x00" * 8)
    return ping_ack(c, b"reserved")


@case("http2/4.2/1", "Sends a DATA frame with 2^14 octets in length")
def _(c):
    c.headers(1, request("POST"), flags=END_HEADERS)
    c.send(frame(DATA, END_STREAM, 1, b"x" * 16384))
    return response(c, 1)


@case("http2/4.2/2", "Sends a large size DATA frame that exceeds the SETTINGS_MAX_FRAME_SIZE")
def _(c):
    c.headers(1, request("POST"), flags=END_HEADERS)
    c.send(frame(DATA, END_STREAM, 1, b"x" * 16385))
    return stream_error(c, FRAME_SIZE_ERROR)


@case("http2/4.2/3", "Sends a large size HEADERS frame that exceeds the SETTINGS_MAX_FRAME_SIZE")
def _(c):
    c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, c.encoder.encode(request(extra=[("x-dummy", "x" * 16384)]), huffman=False)))
    return conn_error(c, FRAME_SIZE_ERROR)


@case("http2/4.3/1", "Sends invalid header block fragment")
def _(c):
    c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, b"\x00\x00\x00\x00\x00"))
    return conn_error(c, COMPRESSION_ERROR)


@case("http2/4.3/2", "Sends a PRIORITY frame while sending the header blocks")
def _(c):
    block = c.encoder.encode(request())
    c.send(frame(HEADERS, END_STREAM, 1, block) + frame(PRIORITY, 0, 1, struct.pack(">IB", 0, 15)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/4.3/3", "Sends a HEADERS frame to another stream while sending the header blocks")
def _(c):
    block = c.encoder.encode(request())
    c.send(frame(HEADERS, END_STREAM, 1, block) + frame(HEADERS, END_HEADERS | END_STREAM, 3, literal(request())))
    return conn_error(c, PROTOCOL_ERROR)


def closed_stream(c, how):
    """Stream 1 half-closed (remote) by END_STREAM, or closed by RST_STREAM or by the answer."""
    if how == "rst":
        # A POST whose announced body never comes: open, unanswered, until the client resets it.
        c.headers(1, request("POST", extra=[("content-length", "4")]), flags=END_HEADERS)
        c.send(frame(RST_STREAM, 0, 1, struct.pack(">I", CANCEL)))
    else:
        c.headers(1)
        if how == "end":
            response(c, 1)
            # The answer's end: the stream is closed on both sides.
            while True:
                t, f, s, p = c.read()
                if s == 1 and f & END_STREAM:
                    break


@case("http2/5.1/1", "idle: Sends a DATA frame")
def _(c):
    c.send(frame(DATA, END_STREAM, 1, b"test"))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/5.1/2", "idle: Sends a RST_STREAM frame")
def _(c):
    c.send(frame(RST_STREAM, 0, 1, struct.pack(">I", CANCEL)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/5.1/3", "idle: Sends a WINDOW_UPDATE frame")
def _(c):
    c.send(frame(WINDOW_UPDATE, 0, 1, struct.pack(">I", 100)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/5.1/4", "idle: Sends a CONTINUATION frame")
def _(c):
    c.send(frame(CONTINUATION, END_HEADERS, 1, c.encoder.encode(request())))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/5.1/5", "half closed (remote): Sends a DATA frame")
def _(c):
    c.headers(1, request("POST"))
    c.send(frame(DATA, END_STREAM, 1, b"test"))
    return stream_error(c, STREAM_CLOSED)


@case("http2/5.1/6", "half closed (remote): Sends a HEADERS frame")
def _(c):
    c.headers(1, request("POST"))
    c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, literal(request("POST"))))
    # Answered by then, the stream is closed and its id one the server no longer tells from a
    # never-opened lower one: PROTOCOL_ERROR then (h2spec passes any connection error here).
    return stream_error(c, STREAM_CLOSED, PROTOCOL_ERROR)


@case("http2/5.1/7", "half closed (remote): Sends a CONTINUATION frame")
def _(c):
    c.headers(1, request("POST"))
    c.send(frame(CONTINUATION, END_HEADERS, 1, literal([("x-test", "ok")])))
    return stream_error(c, STREAM_CLOSED, PROTOCOL_ERROR)


@case("http2/5.1/8", "closed: Sends a DATA frame after sending RST_STREAM frame")
def _(c):
    closed_stream(c, "rst")
    c.send(frame(DATA, END_STREAM, 1, b"test"))
    return stream_error(c, STREAM_CLOSED)


@case("http2/5.1/9", "closed: Sends a HEADERS frame after sending RST_STREAM frame")
def _(c):
    closed_stream(c, "rst")
    c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, literal(request())))
    return stream_error(c, STREAM_CLOSED, PROTOCOL_ERROR)


@case("http2/5.1/10", "closed: Sends a CONTINUATION frame after sending RST_STREAM frame")
def _(c):
    closed_stream(c, "rst")
    c.send(frame(CONTINUATION, END_HEADERS, 1, literal([("x-test", "ok")])))
    return stream_error(c, STREAM_CLOSED, PROTOCOL_ERROR)


@case("http2/5.1/11", "closed: Sends a DATA frame")
def _(c):
    closed_stream(c, "end")
    c.send(frame(DATA, END_STREAM, 1, b"test"))
    return stream_error(c, STREAM_CLOSED)


@case("http2/5.1/12", "closed: Sends a HEADERS frame")
def _(c):
    closed_stream(c, "end")
    c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, literal(request())))
    return stream_error(c, STREAM_CLOSED, PROTOCOL_ERROR)


@case("http2/5.1/13", "closed: Sends a CONTINUATION frame")
def _(c):
    closed_stream(c, "end")
    c.send(frame(CONTINUATION, END_HEADERS, 1, literal([("x-test", "ok")])))
    return stream_error(c, STREAM_CLOSED, PROTOCOL_ERROR)


@case("http2/5.1.1/1", "Sends even-numbered stream identifier")
def _(c):
    c.headers(2)
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/5.1.1/2", "Sends stream identifier that is numerically smaller than previous")
def _(c):
    c.headers(5)
    c.headers(3)
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/5.1.2/1", "Sends HEADERS frames that causes their advertised concurrent stream limit to be exceeded")
def _(c):
    limit = c.peer_settings.get(3)
    if limit is None:
        return (False, "no SETTINGS_MAX_CONCURRENT_STREAMS")
    for i in range(limit + 1):
        c.headers(2 * i + 1, request("POST"), flags=END_HEADERS)
    return stream_error(c, PROTOCOL_ERROR, REFUSED_STREAM)


@case("http2/5.3.1/1", "Sends HEADERS frame that depends on itself")
def _(c):
    c.send(frame(HEADERS, END_HEADERS | END_STREAM | PRIORITY_FLAG, 1, struct.pack(">IB", 1, 15) + c.encoder.encode(request())))
    return stream_error(c, PROTOCOL_ERROR)


@case("http2/5.3.1/2", "Sends PRIORITY frame that depend on itself")
def _(c):
    c.send(frame(PRIORITY, 0, 1, struct.pack(">IB", 1, 15)))
    return stream_error(c, PROTOCOL_ERROR)


@case("http2/5.4.1/1", "Sends an invalid PING frame for connection close")
def _(c):
    c.send(frame(PING, 0, 3, b"\x00" * 8))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/5.4.1/2", "Sends an invalid PING frame to receive GOAWAY frame")
def _(c):
    c.send(frame(PING, 0, 3, b"\x00" * 8))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/5.5/1", "Sends an unknown extension frame")
def _(c):
    c.send(frame(0xFF, 0, 0, b"\x00" * 8))
    return ping_ack(c)


@case("http2/5.5/2", "Sends an unknown extension frame in the middle of a header block")
def _(c):
    c.send(frame(HEADERS, END_STREAM, 1, c.encoder.encode(request())) + frame(0xFF, 0, 1, b"\x00" * 8))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.1/1", "Sends a DATA frame with 0x0 stream identifier")
def _(c):
    c.send(frame(DATA, END_STREAM, 0, b"test"))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.1/2", "Sends a DATA frame on the stream that is not in \"open\" or \"half-closed (local)\" state")
def _(c):
    c.headers(1)
    c.send(frame(DATA, END_STREAM, 1, b"test"))
    return stream_error(c, STREAM_CLOSED)


@case("http2/6.1/3", "Sends a DATA frame with invalid pad length")
def _(c):
    c.headers(1, request("POST"), flags=END_HEADERS)
    c.send(frame(DATA, END_STREAM | PADDED, 1, b"\x06test"))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.2/1", "Sends a HEADERS frame without the END_HEADERS flag, and a PRIORITY frame")
def _(c):
    c.send(frame(HEADERS, END_STREAM, 1, c.encoder.encode(request())) + frame(PRIORITY, 0, 1, struct.pack(">IB", 0, 15)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.2/2", "Sends a HEADERS frame to another stream while sending a HEADERS frame")
def _(c):
    c.send(frame(HEADERS, END_STREAM, 1, c.encoder.encode(request())) + frame(HEADERS, END_HEADERS | END_STREAM, 3, literal(request())))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.2/3", "Sends a HEADERS frame with 0x0 stream identifier")
def _(c):
    c.send(frame(HEADERS, END_HEADERS | END_STREAM, 0, c.encoder.encode(request())))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.2/4", "Sends a HEADERS frame with invalid pad length")
def _(c):
    block = c.encoder.encode(request())
    c.send(frame(HEADERS, END_HEADERS | END_STREAM | PADDED, 1, bytes([len(block) + 1]) + block))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.3/1", "Sends a PRIORITY frame with 0x0 stream identifier")
def _(c):
    c.send(frame(PRIORITY, 0, 0, struct.pack(">IB", 0, 15)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.3/2", "Sends a PRIORITY frame with a length other than 5 octets")
def _(c):
    c.send(frame(PRIORITY, 0, 1, struct.pack(">I", 0)))
    return stream_error(c, FRAME_SIZE_ERROR)


@case("http2/6.4/1", "Sends a RST_STREAM frame with 0x0 stream identifier")
def _(c):
    c.send(frame(RST_STREAM, 0, 0, struct.pack(">I", CANCEL)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.4/2", "Sends a RST_STREAM frame on a idle stream")
def _(c):
    c.send(frame(RST_STREAM, 0, 1, struct.pack(">I", CANCEL)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.4/3", "Sends a RST_STREAM frame with a length other than 4 octets")
def _(c):
    c.headers(1, request("POST"), flags=END_HEADERS)
    c.send(frame(RST_STREAM, 0, 1, b"\x00\x00\x08"))
    return conn_error(c, FRAME_SIZE_ERROR)


@case("http2/6.5/1", "Sends a SETTINGS frame with ACK flag and payload")
def _(c):
    c.send(frame(SETTINGS, ACK, 0, b"\x00" * 6))
    return conn_error(c, FRAME_SIZE_ERROR)


@case("http2/6.5/2", "Sends a SETTINGS frame with a stream identifier other than 0x0")
def _(c):
    c.send(frame(SETTINGS, 0, 1, struct.pack(">HI", 3, 100)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.5/3", "Sends a SETTINGS frame with a length other than a multiple of 6 octets")
def _(c):
    c.send(frame(SETTINGS, 0, 0, b"\x00\x03\x00"))
    return conn_error(c, FRAME_SIZE_ERROR)


@case("http2/6.5.2/1", "SETTINGS_ENABLE_PUSH (0x2): Sends the value other than 0 or 1")
def _(c):
    c.send(settings((2, 2)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.5.2/2", "SETTINGS_INITIAL_WINDOW_SIZE (0x4): Sends the value above the maximum flow control window size")
def _(c):
    c.send(settings((4, 2 ** 31)))
    return conn_error(c, FLOW_CONTROL_ERROR)


@case("http2/6.5.2/3", "SETTINGS_MAX_FRAME_SIZE (0x5): Sends the value below the initial value")
def _(c):
    c.send(settings((5, 16383)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.5.2/4", "SETTINGS_MAX_FRAME_SIZE (0x5): Sends the value above the maximum allowed frame size")
def _(c):
    c.send(settings((5, 16777216)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.5.2/5", "Sends a SETTINGS frame with unknown identifier")
def _(c):
    c.send(settings((0xFF, 1)))
    return ping_ack(c)


@case("http2/6.5.3/1", "Sends multiple values of SETTINGS_INITIAL_WINDOW_SIZE")
def _(c):
    c.send(settings((4, 100), (4, 1)))
    c.headers(1)
    n = data_on(c, 1)
    return (n == 1, "first DATA of %s bytes" % n)


@case("http2/6.5.3/2", "Sends a SETTINGS frame without ACK flag")
def _(c):
    c.send(settings((3, 100)))
    try:
        while True:
            t, f, s, p = c.read()
            if t == SETTINGS and f & ACK:
                return (True, "SETTINGS ACK")
    except (Closed, TimeoutError) as e:
        return (False, repr(e))


@case("http2/6.7/1", "Sends a PING frame")
def _(c):
    return ping_ack(c, b"pingping")


@case("http2/6.7/2", "Sends a PING frame with ACK")
def _(c):
    c.send(frame(PING, ACK, 0, b"unknown!"))
    return ping_ack(c, b"expected")


@case("http2/6.7/3", "Sends a PING frame with a stream identifier field value other than 0x0")
def _(c):
    c.send(frame(PING, 0, 1, b"\x00" * 8))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.7/4", "Sends a PING frame with a length field value other than 8")
def _(c):
    c.send(frame(PING, 0, 0, b"\x00" * 6))
    return conn_error(c, FRAME_SIZE_ERROR)


@case("http2/6.8/1", "Sends a GOAWAY frame with a stream identifier other than 0x0")
def _(c):
    c.send(frame(GOAWAY, 0, 1, struct.pack(">II", 0, NO_ERROR)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.9/1", "Sends a WINDOW_UPDATE frame with a flow control window increment of 0")
def _(c):
    c.send(frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 0)))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.9/2", "Sends a WINDOW_UPDATE frame with a flow control window increment of 0 on a stream")
def _(c):
    c.headers(1, request("POST"), flags=END_HEADERS)
    c.send(frame(WINDOW_UPDATE, 0, 1, struct.pack(">I", 0)))
    return stream_error(c, PROTOCOL_ERROR)


@case("http2/6.9/3", "Sends a WINDOW_UPDATE frame with a length other than 4 octets")
def _(c):
    c.send(frame(WINDOW_UPDATE, 0, 0, b"\x00\x00\x01"))
    return conn_error(c, FRAME_SIZE_ERROR)


@case("http2/6.9.1/1", "Sends SETTINGS frame to set the initial window size to 1 and sends HEADERS frame")
def _(c):
    c.send(settings((4, 1)))
    c.headers(1)
    n = data_on(c, 1)
    return (n == 1, "first DATA of %s bytes" % n)


@case("http2/6.9.1/2", "Sends multiple WINDOW_UPDATE frames increasing the flow control window to above 2^31-1")
def _(c):
    c.send(frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 2 ** 31 - 1)) + frame(WINDOW_UPDATE, 0, 0, struct.pack(">I", 2 ** 31 - 1)))
    return conn_error(c, FLOW_CONTROL_ERROR)


@case("http2/6.9.1/3", "Sends multiple WINDOW_UPDATE frames increasing the flow control window to above 2^31-1 on a stream")
def _(c):
    c.headers(1, request("POST"), flags=END_HEADERS)
    c.send(frame(WINDOW_UPDATE, 0, 1, struct.pack(">I", 2 ** 31 - 1)) + frame(WINDOW_UPDATE, 0, 1, struct.pack(">I", 2 ** 31 - 1)))
    return stream_error(c, FLOW_CONTROL_ERROR)


@case("http2/6.9.2/3", "Sends a SETTINGS_INITIAL_WINDOW_SIZE settings with an exceeded maximum window size value")
def _(c):
    c.send(settings((4, 2 ** 31)))
    return conn_error(c, FLOW_CONTROL_ERROR)


@case("http2/6.10/1", "Sends multiple CONTINUATION frames preceded by a HEADERS frame")
def _(c):
    block = c.encoder.encode(request(extra=[("x-dummy%d" % i, "x" * 100) for i in range(5)]))
    c.send(frame(HEADERS, END_STREAM, 1, block[:50]) + frame(CONTINUATION, 0, 1, block[50:200]) + frame(CONTINUATION, END_HEADERS, 1, block[200:]))
    return response(c, 1)


@case("http2/6.10/2", "Sends a CONTINUATION frame followed by any frame other than CONTINUATION")
def _(c):
    block = c.encoder.encode(request())
    c.send(frame(HEADERS, END_STREAM, 1, block[:5]) + frame(CONTINUATION, 0, 1, block[5:]) + frame(DATA, 0, 1, b"test"))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.10/3", "Sends a CONTINUATION frame with 0x0 stream identifier")
def _(c):
    block = c.encoder.encode(request())
    c.send(frame(HEADERS, END_STREAM, 1, block[:5]) + frame(CONTINUATION, END_HEADERS, 0, block[5:]))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.10/4", "Sends a CONTINUATION frame preceded by a HEADERS frame with END_HEADERS flag")
def _(c):
    c.headers(1)
    c.send(frame(CONTINUATION, END_HEADERS, 1, literal([("x-test", "ok")])))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.10/5", "Sends a CONTINUATION frame preceded by a CONTINUATION frame with END_HEADERS flag")
def _(c):
    block = c.encoder.encode(request())
    c.send(frame(HEADERS, END_STREAM, 1, block[:5]) + frame(CONTINUATION, END_HEADERS, 1, block[5:]) + frame(CONTINUATION, END_HEADERS, 1, literal([("x-test", "ok")])))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/6.10/6", "Sends a CONTINUATION frame preceded by a DATA frame")
def _(c):
    c.headers(1, request("POST"), flags=END_HEADERS)
    c.send(frame(DATA, 0, 1, b"test") + frame(CONTINUATION, END_HEADERS, 1, literal([("x-test", "ok")])))
    return conn_error(c, PROTOCOL_ERROR)


@case("http2/7/1", "Sends a GOAWAY frame with unknown error code")
def _(c):
    c.send(frame(GOAWAY, 0, 0, struct.pack(">II", 0, 0xFF)))
    return ping_ack(c)


@case("http2/7/2", "Sends a RST_STREAM frame with unknown error code")
def _(c):
    c.headers(1, request("POST"), flags=END_HEADERS)
    c.send(frame(RST_STREAM, 0, 1, struct.pack(">I", 0xFF)))
    return ping_ack(c)


@case("http2/8.1/1", "Sends a second HEADERS frame without the END_STREAM flag")
def _(c):
    c.headers(1, request("POST"), flags=END_HEADERS)
    c.send(frame(DATA, 0, 1, b"test"))
    c.send(frame(HEADERS, END_HEADERS, 1, literal([("x-trailer", "no")])))
    return stream_error(c, PROTOCOL_ERROR)


def malformed(fields):
    def run(c):
        c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, literal(fields)))
        return stream_error(c, PROTOCOL_ERROR)
    return run


def base():
    return request()


for id_, title, fields in [
    ("http2/8.1.2/1", "Sends a HEADERS frame that contains the header field name in uppercase letters", base() + [("X-TEST", "ok")]),
    ("http2/8.1.2.1/1", "Sends a HEADERS frame that contains a unknown pseudo-header field", base() + [(":test", "ok")]),
    ("http2/8.1.2.1/2", "Sends a HEADERS frame that contains the pseudo-header field defined for response", base() + [(":status", "200")]),
    ("http2/8.1.2.1/4", "Sends a HEADERS frame that contains a pseudo-header field that appears in a header block after a regular header field", [(":method", "GET"), (":scheme", "http"), ("x-test", "ok"), (":path", "/"), (":authority", "x")]),
    ("http2/8.1.2.2/1", "Sends a HEADERS frame that contains the connection-specific header field", base() + [("connection", "keep-alive")]),
    ("http2/8.1.2.2/2", "Sends a HEADERS frame that contains the TE header field with any value other than \"trailers\"", base() + [("te", "trailers, deflate")]),
    ("http2/8.1.2.3/1", "Sends a HEADERS frame with empty \":path\" pseudo-header field", [(":method", "GET"), (":scheme", "http"), (":path", ""), (":authority", "x")]),
    ("http2/8.1.2.3/2", "Sends a HEADERS frame that omits \":method\" pseudo-header field", [(":scheme", "http"), (":path", "/"), (":authority", "x")]),
    ("http2/8.1.2.3/3", "Sends a HEADERS frame that omits \":scheme\" pseudo-header field", [(":method", "GET"), (":path", "/"), (":authority", "x")]),
    ("http2/8.1.2.3/4", "Sends a HEADERS frame that omits \":path\" pseudo-header field", [(":method", "GET"), (":scheme", "http"), (":authority", "x")]),
    ("http2/8.1.2.3/5", "Sends a HEADERS frame with duplicated \":method\" pseudo-header field", [(":method", "GET"), (":method", "GET"), (":scheme", "http"), (":path", "/"), (":authority", "x")]),
    ("http2/8.1.2.3/6", "Sends a HEADERS frame with duplicated \":scheme\" pseudo-header field", [(":method", "GET"), (":scheme", "http"), (":scheme", "http"), (":path", "/"), (":authority", "x")]),
    ("http2/8.1.2.3/7", "Sends a HEADERS frame with duplicated \":path\" pseudo-header field", [(":method", "GET"), (":scheme", "http"), (":path", "/"), (":path", "/"), (":authority", "x")]),
]:
    CASES.append((id_, title, malformed(fields)))


@case("http2/8.1.2.1/3", "Sends a HEADERS frame that contains a pseudo-header field as trailers")
def _(c):
    c.headers(1, request("POST", extra=[("content-length", "4")]), flags=END_HEADERS)
    c.send(frame(DATA, 0, 1, b"test"))
    c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, literal([(":method", "POST")])))
    return stream_error(c, PROTOCOL_ERROR)


@case("http2/8.1.2.6/1", "Sends a HEADERS frame with the \"content-length\" header field which does not equal the DATA frame payload length")
def _(c):
    c.headers(1, request("POST", extra=[("content-length", "1")]), flags=END_HEADERS)
    c.send(frame(DATA, END_STREAM, 1, b"test"))
    return stream_error(c, PROTOCOL_ERROR)


@case("http2/8.1.2.6/2", "Sends a HEADERS frame with the \"content-length\" header field which does not equal the sum of the multiple DATA frames payload length")
def _(c):
    c.headers(1, request("POST", extra=[("content-length", "1")]), flags=END_HEADERS)
    c.send(frame(DATA, 0, 1, b"test") + frame(DATA, END_STREAM, 1, b"test"))
    return stream_error(c, PROTOCOL_ERROR)


@case("http2/8.2/1", "Sends a PUSH_PROMISE frame")
def _(c):
    c.send(frame(PUSH_PROMISE, END_HEADERS, 1, struct.pack(">I", 2) + literal(request())))
    return conn_error(c, PROTOCOL_ERROR)


# ---- RFC 7541 (h2spec's hpack group) ----

def hpack_error(block):
    def run(c):
        c.send(frame(HEADERS, END_HEADERS | END_STREAM, 1, block))
        return conn_error(c, COMPRESSION_ERROR)
    return run


for id_, title, block in [
    ("hpack/2.3.3/1", "Sends a indexed header field representation with invalid index", b"\xff\x7f" + literal(request())),
    ("hpack/2.3.3/2", "Sends a literal header field representation with invalid index", b"\x7f\x7f\x01a" + literal(request())),
    ("hpack/4.2/1", "Sends a dynamic table size update at the end of header block", literal(request()) + b"\x20"),
    ("hpack/5.2/1", "Sends a Huffman-encoded string literal representation with padding longer than 7 bits", b"\x00\x85\xf2\xb2\x4a\x84\xff\x84\x49\x50\x9f\xff" + literal(request())),
    ("hpack/5.2/2", "Sends a Huffman-encoded string literal representation padded by zero", b"\x00\x01x\x81\x18" + literal(request())),
    ("hpack/5.2/3", "Sends a Huffman-encoded string literal representation containing the EOS symbol", b"\x00\x85\xf2\xb2\x4a\x87\xff\x84\xff\xff\xff\xff" + literal(request())),
    ("hpack/6.1/1", "Sends a indexed header field representation with index 0", b"\x80" + literal(request())),
    ("hpack/6.3/1", "Sends a dynamic table size update larger than the value of SETTINGS_HEADER_TABLE_SIZE", b"\x3f\xe2\x1f" + literal(request())),
    ("hpack/5.1/1", "Sends an integer that overflows (serve's own: more continuation octets than any valid value needs)", b"\x00\x7f" + b"\x80" * 200 + b"\x01a" + literal(request())),
]:
    CASES.append((id_, title, hpack_error(block)))


def main():
    global PORT
    if sys.argv[1:] == ["--list"]:
        for id_, title, _ in CASES:
            print(json.dumps({"id": id_, "title": title}))
        return
    PORT = int(sys.argv[1])
    for id_, title, run in CASES:
        try:
            c = Conn()
            ok, detail = run(c)
            c.close()
        except Exception as e:  # a case that breaks is a failed case, not a broken suite
            ok, detail = False, "%s: %s" % (type(e).__name__, e)
        print(json.dumps({"id": id_, "ok": bool(ok), "detail": detail}), flush=True)


main()
