"""Which TCP congestion control sehttpd's connections use: Reno for a
loopback peer (pacing costs CPU there and buys nothing), the system's for
any other, or --tcp-congestion's for all ("system": the system's)."""

import shutil
import socket
import subprocess
import types
import unittest

from httpraw import build_request, Conn
from target import ServerProcess, needs_process, session_tree
from test_cli import run_cli
from test_service import activated

def system_default():
    with open('/proc/sys/net/ipv4/tcp_congestion_control') as f:
        return f.read().strip()


def available():
    with open('/proc/sys/net/ipv4/tcp_available_congestion_control') as f:
        return f.read().split()


def server_algorithms(port):
    """The algorithm of each established connection whose local port is
    port (the server's side), as ss(8) reports it."""
    out = subprocess.run(
        ['ss', '-tinH', 'state', 'established', '( sport = :%d )' % port],
        capture_output=True, text=True, timeout=10).stdout
    # ss -i prints each socket's details (the algorithm among them) on
    # the line after its address.
    names = available()
    found = []
    for line in out.splitlines():
        found += [w for w in line.split() if w in names][:1]
    return found


def listener_algorithm(port):
    """The algorithm of the listening socket at port, as ss(8) reports
    it: what its connections start with."""
    out = subprocess.run(
        ['ss', '-ltinH', '( sport = :%d )' % port],
        capture_output=True, text=True, timeout=10).stdout
    names = available()
    found = [w for w in out.split() if w in names]
    return found[0] if found else None


def local_address():
    """A non-loopback address of this host, or None."""
    for target in ('10.255.255.255', '192.0.2.1'):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((target, 9))
                addr = s.getsockname()[0]
            if not addr.startswith('127.'):
                return addr
        except OSError:
            pass
    return None


@needs_process('reads its sockets with ss(8)')
@unittest.skipUnless(shutil.which('ss'), 'ss(8) not installed')
class CongestionControlTest(unittest.TestCase):

    def start(self, args=(), bind='127.0.0.1'):
        srv = ServerProcess(list(args), root=session_tree().www, bind=bind)
        self.addCleanup(srv.kill)
        return srv

    def algorithm(self, srv, host='127.0.0.1'):
        """The server side's algorithm on a kept-alive connection from
        host."""
        with Conn(host, srv.port) as c:
            c.send(build_request('GET', '/a.txt'))
            self.assertEqual(c.read_response().status, 200)
            found = server_algorithms(srv.port)
        self.assertEqual(len(found), 1, found)
        return found[0]

    def test_loopback_address_reno(self):
        self.assertEqual(self.algorithm(self.start()), 'reno')

    def test_ipv6_loopback_reno(self):
        try:
            srv = self.start(bind='[::1]')
        except AssertionError:
            self.skipTest('no IPv6 loopback')
        self.assertEqual(self.algorithm(srv, '::1'), 'reno')

    def test_wildcard_reno_for_a_loopback_peer(self):
        srv = self.start(bind='0.0.0.0')
        self.assertEqual(self.algorithm(srv), 'reno')

    @unittest.skipUnless(system_default().startswith('bbr'),
                         "the system's algorithm does not pace")
    def test_wildcard_loopback_peer_never_paced(self):
        # BBR marks a connection for pacing when it starts, and a switch
        # to Reno after accept() leaves the mark: the loopback peer of a
        # wildcard listener paid 27 us of server CPU per 100 KiB response
        # against 16 on a 127.0.0.1 listener.  So the listener is Reno
        # and only other peers are moved to the system's algorithm.
        srv = self.start(bind='0.0.0.0')
        self.assertEqual(listener_algorithm(srv.port), 'reno')
        self.assertEqual(self.algorithm(srv), 'reno')

    def test_wildcard_system_for_another_peer(self):
        addr = local_address()
        if not addr:
            self.skipTest('no address but loopback')
        srv = self.start(bind='0.0.0.0')
        self.assertEqual(self.algorithm(srv, addr), system_default())

    def start_passed(self, args, algorithm):
        """sehttpd on a wildcard socket passed as systemd passes it, on
        which an earlier instance had set algorithm (a socket held across
        restarts carries it): not the system's choice.  What algorithm()
        takes: something with the port."""
        lsock = socket.socket()
        self.addCleanup(lsock.close)
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lsock.bind(('0.0.0.0', 0))
        lsock.listen(16)
        lsock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION,
                         algorithm.encode())
        proc = activated(lsock.fileno(), {'LISTEN_FDS': 1},
                         ['-t', '1'] + args + [session_tree().www])
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.kill)
        port = lsock.getsockname()[1]
        self.assertIn(':%d/' % port, proc.stdout.readline().decode())
        return types.SimpleNamespace(port=port)

    @unittest.skipUnless(system_default().startswith('bbr'),
                         "the system's algorithm does not pace")
    def test_passed_socket_set_before_keeps_the_system_for_others(self):
        addr = local_address()
        if not addr:
            self.skipTest('no address but loopback')
        srv = self.start_passed([], 'reno')
        self.assertEqual(self.algorithm(srv), 'reno')
        self.assertEqual(self.algorithm(srv, addr), system_default())

    def test_passed_socket_set_before_system(self):
        other = 'cubic' if system_default() != 'cubic' else 'reno'
        if other not in available():
            self.skipTest('no algorithm but the system\'s')
        srv = self.start_passed(['--tcp-congestion', 'system'], other)
        self.assertEqual(self.algorithm(srv), system_default())

    def test_system(self):
        srv = self.start(['--tcp-congestion', 'system'])
        self.assertEqual(self.algorithm(srv), system_default())

    def test_named(self):
        want = 'cubic' if 'cubic' in available() else 'reno'
        srv = self.start(['--tcp-congestion', want], bind='0.0.0.0')
        self.assertEqual(self.algorithm(srv), want)

    def test_bad_names(self):
        for name, why in (('nosuchalgo', 'no such algorithm'),
                          ('', "not an algorithm's name"),
                          ('x' * 16, "not an algorithm's name")):
            rc, out, err = run_cli(['--tcp-congestion', name,
                                    session_tree().www])
            self.assertEqual(rc, 2, err)
            self.assertIn("invalid --tcp-congestion '%s'" % name, err)
            self.assertIn(why, err)


if __name__ == '__main__':
    unittest.main()
