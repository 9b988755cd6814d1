"""An echo server that gets one byte in 1,000 wrong, so that the echo
test can show it catches a wrong echo.  Prints its port, serves until
killed."""

import socket
import threading


def serve(conn):
    seen = 0
    with conn:
        while True:
            data = conn.recv(65536)
            if not data:
                return
            out = bytearray(data)
            for i in range(len(out)):
                if (seen + i) % 1000 == 999:
                    out[i] ^= 0x20
            seen += len(out)
            conn.sendall(out)


def main():
    lsock = socket.socket()
    lsock.bind(('127.0.0.1', 0))
    lsock.listen(256)
    print(lsock.getsockname()[1], flush=True)
    while True:
        conn, _ = lsock.accept()
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


if __name__ == '__main__':
    main()
