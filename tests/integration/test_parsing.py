"""Request parsing: methods, versions, request targets, header syntax,
message framing and the size limits (RFC 9112)."""

import time

import httpraw
from httpraw import build_request
from target import ServerTestCase

# OPTIONS is answered (test_site).
KNOWN_METHODS = ['POST', 'PUT', 'DELETE', 'PATCH', 'TRACE']
GET_A = b'GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n'


class ParsingTest(ServerTestCase):

    def expect_status_then_close(self, data, status, what=None):
        """Sends data on a fresh connection: one error response, then the
        server closes."""
        what = ' for %r' % (what or data[:120])
        with self.conn() as c:
            c.send(data)
            resp = c.read_response()
            self.assert_error(resp, status)
            self.assertEqual(resp.status, status, 'status%s' % what)
            self.assert_closed(c, what=what)
        return resp

    def expect_ok_and_alive(self, data, url='/a.txt'):
        with self.conn() as c:
            c.send(data)
            self.assert_file(c.read_response(), url, ' for %r' % data)
            c.send(GET_A)
            self.assert_file(c.read_response(), '/a.txt', ' (next request)')

    # --- methods --------------------------------------------------------

    def test_get_and_head(self):
        with self.conn() as c:
            c.send(build_request('GET', '/a.txt'))
            get = c.read_response()
            self.assert_file(get, '/a.txt')
            c.send(build_request('HEAD', '/a.txt'))
            head = c.read_response('HEAD')
            self.assertEqual(head.status, 200)
            c.send(GET_A)
            self.assert_file(c.read_response(), '/a.txt',
                             ' after a HEAD (HEAD sent a body?)')

    def test_known_methods_405_keep_alive(self):
        for method in KNOWN_METHODS:
            with self.subTest(method=method), self.conn() as c:
                c.send(build_request(method, '/a.txt'))
                resp = c.read_response()
                self.assert_error(resp, 405)
                self.assertEqual(resp.header('Allow'), 'GET, HEAD, OPTIONS')
                self.assertNotIn('close', resp.connection_tokens())
                c.send(GET_A)
                self.assert_file(c.read_response(), '/a.txt',
                                 ' after a %s' % method)

    def test_405_discards_body(self):
        body = b'GET /b.txt HTTP/1.1\r\nHost: smuggled\r\n\r\n'
        for method in ('POST', 'PUT', 'PATCH'):
            with self.subTest(method=method), self.conn() as c:
                c.send(build_request(method, '/a.txt', body=body) + GET_A)
                self.assert_error(c.read_response(), 405)
                self.assert_file(c.read_response(), '/a.txt',
                                 ' after a %s with a body' % method)
                self.assert_open(c)

    def test_405_discards_chunked_body(self):
        req = (b'POST /a.txt HTTP/1.1\r\nHost: t\r\n'
               b'Transfer-Encoding: chunked\r\n\r\n'
               b'5\r\nhello\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n'
               b'0\r\n\r\n')
        with self.conn() as c:
            c.send(req + GET_A)
            self.assert_error(c.read_response(), 405)
            self.assert_file(c.read_response(), '/a.txt')

    def test_connect_405_then_close(self):
        """A CONNECT has no content (RFC 9110 9.3.6) and what follows its
        head is the tunnel's, which is never opened: neither a body to skip
        by its Content-Length nor requests.  Before, the 405 kept the
        connection, a Content-Length's bytes were skipped as a body and
        the rest answered as requests: a proxy that forwards CONNECT and
        reads no content after it would frame them differently."""
        tail = b'GET /b.txt HTTP/1.1\r\nHost: t\r\n\r\n' + GET_A
        for head in (b'CONNECT t:443 HTTP/1.1\r\nHost: t\r\n\r\n',
                     b'CONNECT t:443 HTTP/1.1\r\nHost: t\r\n'
                     b'Content-Length: 32\r\n\r\n',
                     build_request('CONNECT', '/a.txt')):
            with self.subTest(head=head), self.conn() as c:
                c.send(head + tail)
                resp = c.read_response()
                self.assert_error(resp, 405)
                self.assertIn('close', resp.connection_tokens())
                self.assert_closed(c, what=' to a CONNECT')

    def test_unknown_methods_501_close(self):
        for method in ('FOO', 'get', 'Get', 'PROPFIND', 'BREW'):
            with self.subTest(method=method):
                self.expect_status_then_close(
                    build_request(method, '/a.txt'), 501)

    # --- versions -------------------------------------------------------

    def test_unsupported_versions_505_close(self):
        for version in ('HTTP/2.0', 'HTTP/3.0', 'HTTP/0.9', 'HTTP/9.9'):
            with self.subTest(version=version):
                self.expect_status_then_close(
                    build_request('GET', '/a.txt', version), 505)

    def test_later_minor_version_served_as_http11(self):
        """RFC 9110 2.5: a message of a later minor version of a major
        version the server implements is processed as of the highest minor
        version it implements, here 1.1, as nginx does; before, 505."""
        for version in ('HTTP/1.2', 'HTTP/1.9'):
            with self.subTest(version=version), self.conn() as c:
                c.send(build_request('GET', '/a.txt', version) + GET_A)
                resp = c.read_response()
                self.assert_file(resp, '/a.txt', ' for ' + version)
                self.assertEqual(resp.version, 'HTTP/1.1')
                self.assert_file(c.read_response(), '/a.txt',
                                 ' pipelined after ' + version)
                self.assert_open(c)
                # ...with 1.1's rules: Host is required.
                self.expect_status_then_close(
                    ('GET /a.txt %s\r\n\r\n' % version).encode(), 400)

    def test_malformed_versions_400(self):
        for version in ('HTTP/1', 'HTTP/1.1.1', 'http/1.1', 'HTTP/11',
                        'HTTP/1.', 'HTTP 1.1', 'HTTP/a.b', 'HTTPS/1.1',
                        'HTTP/1.1x', 'HTTP/-1.1'):
            with self.subTest(version=version):
                self.expect_status_then_close(
                    build_request('GET', '/a.txt', version), 400)

    def test_http10_without_host(self):
        resp = self.send(b'GET /a.txt HTTP/1.0\r\n\r\n')
        self.assert_file(resp, '/a.txt')

    # --- request targets ------------------------------------------------

    def test_absolute_form(self):
        hp = self.target.hostport
        for tgt in ('http://%s/a.txt' % hp, 'http://%s/a.txt?q=1' % hp,
                    'http://localhost/mime/data.json',
                    'HTTP://%s/a.txt' % hp):
            url = '/mime/data.json' if 'json' in tgt else '/a.txt'
            with self.subTest(target=tgt), self.conn() as c:
                c.send(build_request('GET', tgt, host=hp))
                self.assert_file(c.read_response(), url, ' for ' + tgt)
                c.send(GET_A)
                self.assert_file(c.read_response(), '/a.txt')

    def test_absolute_form_invalid_authority_400(self):
        # RFC 9110 4.2.1 and 4.2.4: no empty host, no userinfo; the
        # authority is uri-host [":" port] like Host.
        for tgt in (b'http:///a.txt', b'http://u@t/a.txt', b'http://t:x/a.txt',
                    b'http://[::1/a.txt', b'http://t\xff/a.txt'):
            with self.subTest(target=tgt), self.conn() as c:
                c.send(b'GET ' + tgt + b' HTTP/1.1\r\nHost: t\r\n\r\n')
                self.assert_error(c.read_response(), 400)

    def test_host_required_for_http11(self):
        self.expect_status_then_close(b'GET /a.txt HTTP/1.1\r\n\r\n', 400)
        self.expect_status_then_close(
            b'GET /a.txt HTTP/1.1\r\nUser-Agent: x\r\n\r\n', 400)

    def test_two_host_headers(self):
        self.expect_status_then_close(
            b'GET /a.txt HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 400)
        self.expect_status_then_close(
            b'GET /a.txt HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n', 400)
        self.expect_status_then_close(
            b'GET /a.txt HTTP/1.1\r\nHost: a\r\nhOST: b\r\n\r\n', 400)

    def test_invalid_host_400(self):
        # RFC 9112 3.2: uri-host [":" port], RFC 3986's host syntax.
        for host in (b'a b', b'x/y?z', b'"bad"', b'x\xff', b'[::1',
                     b'x:notaport'):
            with self.subTest(host=host):
                self.expect_status_then_close(
                    b'GET /a.txt HTTP/1.1\r\nHost: ' + host + b'\r\n\r\n',
                    400)

    def test_valid_host_forms(self):
        for host in (b'[::1]:8080', b'127.0.0.1', b'example.test:',
                     b'xn--bcher-kva.example', b'[v1.x]', b''):
            with self.subTest(host=host):
                self.expect_ok_and_alive(
                    b'GET /a.txt HTTP/1.1\r\nHost: ' + host + b'\r\n\r\n')

    def test_fragment_in_target_400(self):
        # RFC 9112 3.2: the request target has no fragment, query or not.
        for tgt in (b'/a.txt#x', b'/a.txt?q#x', b'/a.txt?#', b'/a.txt?q=#1',
                    b'http://t/a.txt?q#f'):
            with self.subTest(target=tgt):
                self.expect_status_then_close(
                    b'GET ' + tgt + b' HTTP/1.1\r\nHost: t\r\n\r\n', 400)

    def test_refused_head_of_head_has_no_body(self):
        """RFC 9110 9.3.2: the answer to HEAD has no content, also when the
        head is refused once its method was read (nginx's answer too)."""
        refused = [
            (b'HEAD /a.txt#x HTTP/1.1\r\nHost: t\r\n\r\n', 400),
            (b'HEAD /a.txt HTTP/1.1\r\nHost: t\r\nX : y\r\n\r\n', 400),
            (b'HEAD /a.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\n'
             b'Transfer-Encoding: chunked\r\n\r\n', 400),
            (b'HEAD /a.txt HTTP/2.0\r\nHost: t\r\n\r\n', 505),
            (build_request('HEAD', '/' + 'x' * 8300), 414),
            (build_request('HEAD', '/a.txt', headers=[('X-Big', 'b' * 17000)]),
             431),
        ]
        for data, status in refused:
            what = ' for %r' % data[:60]
            with self.subTest(request=data[:60]), self.conn() as c:
                c.send(data)
                resp = c.read_response('HEAD')
                self.assertEqual(resp.status, status, resp.describe())
                # Its Content-Length is the page a GET would get.
                self.assertGreater(int(resp.header('Content-Length')), 0)
                self.assert_closed(c, what=what)

    def test_bad_request_lines(self):
        bad = [
            b'GET\r\nHost: t\r\n\r\n',
            b'GET /a.txt\r\nHost: t\r\n\r\n',
            b'/a.txt HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET  /a.txt HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET /a.txt  HTTP/1.1\r\nHost: t\r\n\r\n',
            b' GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET /a.txt HTTP/1.1 \r\nHost: t\r\n\r\n',
            b'GET /a.txt HTTP/1.1 extra\r\nHost: t\r\n\r\n',
            b'GET /a b.txt HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET\t/a.txt HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET /a.txt\tHTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET /a\x01.txt HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET /a\x7f.txt HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET /a\x1b.txt HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET a.txt HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET  HTTP/1.1\r\nHost: t\r\n\r\n',
            b'G(T /a.txt HTTP/1.1\r\nHost: t\r\n\r\n',
        ]
        for data in bad:
            with self.subTest(request=data):
                resp = self.expect_status_then_close(data, 400)
                self.assertNotIn(b'hello world', resp.body)

    def test_bad_header_syntax(self):
        bad = [
            b'NoColonHere',
            b'Foo : bar',
            b'Foo\t: bar',
            b': empty name',
            b'Fo o: bar',
            b'Fo(o): bar',
            b'Fo"o: bar',
            b'Fo/o: bar',
            b'Fo@o: bar',
            b'F\xe9o: bar',
        ]
        for line in bad:
            with self.subTest(line=line):
                self.expect_status_then_close(
                    b'GET /a.txt HTTP/1.1\r\nHost: t\r\n' + line +
                    b'\r\n\r\n', 400)

    def test_obs_fold(self):
        for fold in (b' continued', b'\tcontinued', b'  x: y'):
            with self.subTest(fold=fold):
                self.expect_status_then_close(
                    b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX-Long: a\r\n' +
                    fold + b'\r\n\r\n', 400)
        self.expect_status_then_close(
            b'GET /a.txt HTTP/1.1\r\n Host: t\r\n\r\n', 400,
            'a fold right after the request line')

    def test_nul_anywhere_in_head(self):
        bad = [
            b'\x00GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n',
            b'G\x00ET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET /a.txt\x00 HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET /a.txt HTTP/1.1\x00\r\nHost: t\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHo\x00st: t\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHost: t\x00\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX: a\x00b\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHost: t\r\n\x00\r\n\r\n',
        ]
        for data in bad:
            with self.subTest(request=data):
                self.expect_status_then_close(data, 400)

    def test_control_chars_in_field_value(self):
        for value in (b'a\x01b', b'a\x7fb', b'a\x1fb'):
            with self.subTest(value=value):
                self.expect_status_then_close(
                    b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX: ' + value +
                    b'\r\n\r\n', 400)

    def test_header_value_whitespace_and_case(self):
        reqs = [
            b'GET /a.txt HTTP/1.1\r\nhost: t\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHOST:t\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHost: \t t \t\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX-Empty:\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX-Tab: a\tb\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX-8bit: caf\xc3\xa9\r\n\r\n',
            b"GET /a.txt HTTP/1.1\r\nHost: t\r\n!#$%&'*+-.^_`|~09az: v\r\n"
            b'\r\n',
        ]
        for data in reqs:
            with self.subTest(request=data):
                self.expect_ok_and_alive(data)

    # --- line endings ---------------------------------------------------

    def test_bare_lf_accepted(self):
        self.expect_ok_and_alive(b'GET /a.txt HTTP/1.1\nHost: t\n\n')
        self.expect_ok_and_alive(b'GET /a.txt HTTP/1.1\r\nHost: t\n\r\n')
        self.expect_ok_and_alive(b'GET /a.txt HTTP/1.1\nHost: t\r\n\n')

    def test_bare_cr_400(self):
        bad = [
            b'GET /a.txt HTTP/1.1\rHost: t\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHost: t\r\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX: a\rb\r\n\r\n',
            b'GET /a\r.txt HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\r\n',
        ]
        for data in bad:
            with self.subTest(request=data):
                self.expect_status_then_close(data, 400)

    # --- message framing ------------------------------------------------

    def test_cl_and_te_400(self):
        self.expect_status_then_close(
            b'GET /a.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n'
            b'Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400)
        self.expect_status_then_close(
            b'POST /a.txt HTTP/1.1\r\nHost: t\r\n'
            b'Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n'
            b'0\r\n\r\n', 400)

    def test_invalid_content_length_400(self):
        for value in (b'abc', b'-1', b'1 2', b'+5', b'0x5', b'',
                      b'99999999999999999999999999',
                      b'18446744073709551616', b'5, 6', b'5.0'):
            with self.subTest(value=value):
                self.expect_status_then_close(
                    b'GET /a.txt HTTP/1.1\r\nHost: t\r\nContent-Length: ' +
                    value + b'\r\n\r\n', 400)

    def test_content_length_leading_zeros(self):
        # Content-Length = 1*DIGIT: only significant digits count.
        body = b'hello'
        with self.conn() as c:
            c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\nContent-Length: '
                   + b'0' * 30 + b'5\r\n\r\n' + body + GET_A)
            self.assert_file(c.read_response(), '/a.txt')
            self.assert_file(c.read_response(), '/a.txt',
                             ' after a Content-Length with leading zeros')

    def test_two_different_content_lengths_400(self):
        self.expect_status_then_close(
            b'POST /a.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n'
            b'Content-Length: 6\r\n\r\nhello!', 400)

    def test_bad_transfer_encoding_400(self):
        for te in (b'gzip', b'chunked, gzip', b'identity', b'chunkedx'):
            with self.subTest(te=te):
                self.expect_status_then_close(
                    b'GET /a.txt HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: '
                    + te + b'\r\n\r\n0\r\n\r\n', 400)

    def test_transfer_coding_not_implemented_501(self):
        # RFC 9112 6.1: chunked is the only coding implemented; field lines
        # with the same name are one list.
        for te in (b'Transfer-Encoding: gzip, chunked\r\n',
                   b'Transfer-Encoding: gzip\r\nTransfer-Encoding: chunked'
                   b'\r\n'):
            with self.subTest(te=te):
                self.expect_status_then_close(
                    b'POST /a.txt HTTP/1.1\r\nHost: t\r\n' + te +
                    b'\r\n0\r\n\r\n', 501)

    def test_chunked_applied_twice_400(self):
        for te in (b'Transfer-Encoding: chunked, chunked\r\n',
                   b'Transfer-Encoding: chunked\r\nTransfer-Encoding: '
                   b'chunked\r\n'):
            with self.subTest(te=te):
                self.expect_status_then_close(
                    b'POST /a.txt HTTP/1.1\r\nHost: t\r\n' + te +
                    b'\r\n0\r\n\r\n', 400)

    def test_http10_transfer_encoding_closes(self):
        # RFC 9112 6.1: the framing of an HTTP/1.0 message with
        # Transfer-Encoding is faulty; answer, then close.
        with self.conn() as c:
            c.send(b'GET /a.txt HTTP/1.0\r\nConnection: keep-alive\r\n'
                   b'Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n' + GET_A)
            resp = c.read_response()
            self.assert_file(resp, '/a.txt')
            self.assertNotIn('keep-alive', resp.connection_tokens())
            self.assert_closed(c, what=' after HTTP/1.0 with '
                               'Transfer-Encoding')

    def test_get_with_body_then_pipelined(self):
        body = b'x' * 1000 + b'GET /b.txt HTTP/1.1\r\n\r\n'
        with self.conn() as c:
            c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\nContent-Length: %d'
                   b'\r\n\r\n' % len(body) + body +
                   b'GET /hello.txt HTTP/1.1\r\nHost: t\r\n\r\n')
            self.assert_file(c.read_response(), '/a.txt')
            self.assert_file(c.read_response(), '/hello.txt',
                             ' after a GET with a body')
            self.assert_open(c)

    def test_get_with_chunked_body_then_pipelined(self):
        with self.conn() as c:
            c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\n'
                   b'Transfer-Encoding: chunked\r\n\r\n'
                   b'5\r\nhello\r\nA\r\n0123456789\r\n0\r\n\r\n'
                   b'GET /hello.txt HTTP/1.1\r\nHost: t\r\n\r\n')
            self.assert_file(c.read_response(), '/a.txt')
            self.assert_file(c.read_response(), '/hello.txt',
                             ' after a GET with a chunked body')

    def test_chunked_body_extensions_and_trailers(self):
        with self.conn() as c:
            c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\n'
                   b'Transfer-Encoding: chunked\r\n\r\n'
                   b'5;name=value\r\nhello\r\n0\r\nX-Trailer: t\r\n\r\n'
                   b'GET /hello.txt HTTP/1.1\r\nHost: t\r\n\r\n')
            self.assert_file(c.read_response(), '/a.txt')
            self.assert_file(c.read_response(), '/hello.txt',
                             ' after chunk extensions and trailers')

    def test_body_sent_in_pieces(self):
        with self.conn() as c:
            c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 10'
                   b'\r\n\r\n01234')
            self.assert_file(c.read_response(), '/a.txt')
            c.send_slowly(b'56789GET /b.txt HTTP/1.1\r\nHost: t\r\n\r\n',
                          step=3)
            self.assert_file(c.read_response(), '/b.txt')

    def read_interim(self, c, what):
        """Reads a response head that must be 100 (Continue)."""
        head = httpraw.Response()
        c.read_head(head)
        self.assertEqual(head.status, 100, 'no 100 (Continue) %s, got:\n%s'
                         % (what, head.describe()))
        self.assertEqual(head.headers, [])

    def test_expect_100_continue(self):
        """A client that holds its body back until 100 (Continue), as
        curl does, must get it before the final response, then send the
        body, and the next request must be read as a request."""
        cases = [
            ('GET', b'Content-Length: 5\r\n', b'hello', '/a.txt'),
            ('GET', b'Transfer-Encoding: chunked\r\n',
             b'5\r\nhello\r\n0\r\n\r\n', '/a.txt'),
            ('POST', b'Content-Length: 5\r\n', b'hello', None),
        ]
        for method, framing, body, url in cases:
            with self.subTest(method=method, framing=framing), \
                    self.conn() as c:
                c.send(method.encode() + b' /a.txt HTTP/1.1\r\nHost: t\r\n'
                       + framing + b'Expect: 100-Continue\r\n\r\n')
                self.read_interim(c, 'to a client awaiting it')
                c.send(body)
                resp = c.read_response()
                if url:
                    self.assert_file(resp, url)
                else:
                    self.assert_error(resp, 405)
                c.send(GET_A)
                self.assert_file(c.read_response(), '/a.txt',
                                 ' (the request after the body)')

    def test_expect_100_continue_body_sent_at_once(self):
        """A client that does not wait for the 100 loses nothing."""
        with self.conn() as c:
            c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 5'
                   b'\r\nExpect: 100-continue\r\n\r\nhello' + GET_A)
            self.read_interim(c, 'for a body sent at once')
            self.assert_file(c.read_response(), '/a.txt')
            self.assert_file(c.read_response(), '/a.txt',
                             ' (the pipelined request)')

    def test_expect_without_body_or_http10_no_100(self):
        """No body, or an HTTP/1.0 client (which knows no 100): the
        final response comes first."""
        for req in (b'GET /a.txt HTTP/1.1\r\nHost: t\r\n'
                    b'Expect: 100-continue\r\n\r\n',
                    b'GET /a.txt HTTP/1.0\r\nContent-Length: 5\r\n'
                    b'Expect: 100-continue\r\n\r\nhello'):
            with self.subTest(req=req), self.conn() as c:
                c.send(req)
                self.assert_file(c.read_response(), '/a.txt')

    def test_bad_chunked_body_400(self):
        bad = [b'zz\r\nhello\r\n0\r\n\r\n',
               b'5\r\nhelloXX0\r\n\r\n',
               b'-5\r\nhello\r\n0\r\n\r\n',
               b'ffffffffffffffffffffff\r\nx\r\n0\r\n\r\n']
        for body in bad:
            with self.subTest(body=body), self.conn() as c:
                c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\n'
                       b'Transfer-Encoding: chunked\r\n\r\n' + body)
                # The head is valid, so the file may be sent before the
                # body is read; the bad framing must then end the
                # connection, and nothing may be taken as a request.
                resp = c.read_response()
                if resp.status == 200:
                    self.assert_file(resp, '/a.txt')
                    self.assert_closed(c, what=' after bad chunking')
                else:
                    self.assert_error(resp, 400)
                    self.assert_closed(c)

    def test_chunked_body_bare_lf_or_bad_extension_closes(self):
        # RFC 9112 7.1: every framing line ends in CRLF, and extensions are
        # ;name[=token/quoted-string].  A lenient reader would see the
        # smuggled request.
        smuggled = b'GET /b.txt HTTP/1.1\r\nHost: t\r\n\r\n'
        bad = [b'5\nhello\r\n0\r\n\r\n',
               b'5\r\nhello\n0\r\n\r\n',
               b'5\nhello\n0\n\n',
               b'0\r\n\n',
               b'5;a b\r\nhello\r\n0\r\n\r\n',
               b'5;\r\nhello\r\n0\r\n\r\n',
               b'5;a="b"c\r\nhello\r\n0\r\n\r\n',
               b'5 \r\nhello\r\n0\r\n\r\n']
        for body in bad:
            with self.subTest(body=body), self.conn() as c:
                c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\n'
                       b'Transfer-Encoding: chunked\r\n\r\n' + body +
                       smuggled)
                resp = c.read_response()
                if resp.status == 200:
                    self.assert_file(resp, '/a.txt')
                    self.assert_closed(c, what=' after bad chunking')
                else:
                    self.assert_error(resp, 400)
                    self.assert_closed(c)

    def test_bad_chunked_body_after_a_large_answer_no_reset(self):
        """A body found malformed once its answer is out ends the
        connection, but the answer still reaches a client that reads it
        slowly: the server reads on (lingers) before it closes, where a
        close with the client's bytes unread is a reset that throws away
        the answer's tail still queued.  Before, the answer was cut."""
        url = '/big/1m.bin'
        with self.conn(rcvbuf=65536) as c:
            c.send(b'GET ' + url.encode() + b' HTTP/1.1\r\nHost: t\r\n'
                   b'Transfer-Encoding: chunked\r\n\r\nzz\r\n' +
                   b'x' * 65536)
            time.sleep(0.5)
            self.assert_file(c.read_response(), url)
            closed, _ = c.wait_closed(5)
            self.assertTrue(closed, 'still open after bad chunking')

    def test_chunked_body_bad_trailer_closes(self):
        # Trailer fields are field lines: name ":" value, no obs-fold.
        smuggled = b'GET /b.txt HTTP/1.1\r\nHost: t\r\n\r\n'
        for trailer in (b' X: 1\r\n', b'X: 1\r\n more\r\n', b'no colon\r\n',
                        b'X: a\x01b\r\n'):
            with self.subTest(trailer=trailer), self.conn() as c:
                c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\n'
                       b'Transfer-Encoding: chunked\r\n\r\n'
                       b'5\r\nhello\r\n0\r\n' + trailer + b'\r\n' +
                       smuggled)
                resp = c.read_response()
                if resp.status == 200:
                    self.assert_file(resp, '/a.txt')
                    self.assert_closed(c, what=' after a bad trailer')
                else:
                    self.assert_error(resp, 400)
                    self.assert_closed(c)

    def test_chunk_size_leading_zeros(self):
        # Only significant digits count against the 64-bit size.
        with self.conn() as c:
            c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\n'
                   b'Transfer-Encoding: chunked\r\n\r\n'
                   b'000000000000000000000005\r\nhello\r\n'
                   b'00000000000000000000\r\n\r\n' + GET_A)
            self.assert_file(c.read_response(), '/a.txt')
            self.assert_file(c.read_response(), '/a.txt',
                             ' after a chunk size with leading zeros')

    # --- limits ---------------------------------------------------------

    def test_long_request_line_414(self):
        target = '/' + 'x' * 8300
        resp = self.expect_status_then_close(build_request('GET', target),
                                             414, 'a 8.3 KB request line')
        self.assertNotIn(b'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', resp.body)

    def test_long_request_line_not_yet_delimited_414(self):
        """The line is over the limit before its end has arrived."""
        with self.conn() as c:
            c.send(b'GET /' + b'y' * 9000)
            resp = c.read_response()
            self.assert_error(resp, 414)
            self.assert_closed(c)

    def test_method_that_never_ends_501(self):
        """A method longer than any implemented is 501 (RFC 9112 3), also
        when it runs to the request line's limit; before, 414, the status
        of a long target."""
        with self.conn() as c:
            c.send(b'G' * 9000)
            resp = c.read_response()
            self.assert_error(resp, 501)
            self.assert_closed(c)

    def test_request_line_under_limit(self):
        target = '/' + 'x' * 8000
        resp = self.send(build_request('GET', target))
        self.assert_error(resp, 404)

    def test_header_section_over_16k_431(self):
        headers = [('X-Fill-%02d' % i, 'v' * 990) for i in range(17)]
        self.expect_status_then_close(build_request('GET', '/a.txt',
                                                    headers=headers),
                                      431, '17 KB of header fields')

    def test_one_huge_header_431(self):
        self.expect_status_then_close(
            build_request('GET', '/a.txt', headers=[('X-Big', 'b' * 17000)]),
            431, 'one 17 KB header field')

    def test_header_section_under_limit(self):
        headers = [('X-Fill-%02d' % i, 'v' * 990) for i in range(15)]
        self.expect_ok_and_alive(build_request('GET', '/a.txt',
                                               headers=headers))

    def test_100_header_fields_ok(self):
        headers = [('X-H%03d' % i, str(i)) for i in range(99)]
        self.expect_ok_and_alive(build_request('GET', '/a.txt',
                                               headers=headers))

    def test_101_header_fields_431(self):
        headers = [('X-H%03d' % i, str(i)) for i in range(100)]
        self.expect_status_then_close(build_request('GET', '/a.txt',
                                                    headers=headers),
                                      431, '101 header fields')
