/* Test double for a Windows C compiler under Wine: forwards its command line to the suite's relay server on
 * loopback, which runs the mingw-w64 cross compiler on Linux. A Windows process cannot wait on a Linux child,
 * so node.exe needs a Windows program to call. The port is read from relay.port beside this executable.
 * Wire format, all integers little-endian uint32: request = count, then count x (length, UTF-8 bytes) where the
 * first field is the working directory; reply = exit code, stdout length + bytes, stderr length + bytes. */
#include <winsock2.h>
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int send_all(SOCKET s, const char *p, int n) {
  while (n > 0) {
    int k = send(s, p, n, 0);
    if (k <= 0) return -1;
    p += k;
    n -= k;
  }
  return 0;
}

static int recv_all(SOCKET s, char *p, int n) {
  while (n > 0) {
    int k = recv(s, p, n, 0);
    if (k <= 0) return -1;
    p += k;
    n -= k;
  }
  return 0;
}

static int send_u32(SOCKET s, unsigned v) {
  unsigned char b[4] = {v & 255, (v >> 8) & 255, (v >> 16) & 255, (v >> 24) & 255};
  return send_all(s, (const char *)b, 4);
}

static int recv_u32(SOCKET s, unsigned *v) {
  unsigned char b[4];
  if (recv_all(s, (char *)b, 4)) return -1;
  *v = b[0] | (b[1] << 8) | (b[2] << 16) | ((unsigned)b[3] << 24);
  return 0;
}

static int send_wide(SOCKET s, const wchar_t *w) {
  int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
  char *u = malloc(n > 0 ? n : 1);
  WideCharToMultiByte(CP_UTF8, 0, w, -1, u, n, NULL, NULL);
  int r = send_u32(s, (unsigned)(n - 1)) || send_all(s, u, n - 1);
  free(u);
  return r;
}

static int relay_stream(SOCKET s, HANDLE out) {
  unsigned n;
  if (recv_u32(s, &n)) return -1;
  char *buf = malloc(n + 1);
  if (recv_all(s, buf, (int)n)) return -1;
  DWORD w;
  if (n) WriteFile(out, buf, n, &w, NULL);
  free(buf);
  return 0;
}

int main(void) {
  wchar_t exe[MAX_PATH], portFile[MAX_PATH + 16];
  GetModuleFileNameW(NULL, exe, MAX_PATH);
  wcscpy(portFile, exe);
  wchar_t *slash = wcsrchr(portFile, L'\\');
  wcscpy(slash ? slash + 1 : portFile, L"relay.port");
  FILE *pf = _wfopen(portFile, L"r");
  int port = 0;
  if (!pf || fscanf(pf, "%d", &port) != 1) {
    fprintf(stderr, "relay: cannot read %ls\n", portFile);
    return 127;
  }
  fclose(pf);

  WSADATA wsa;
  WSAStartup(MAKEWORD(2, 2), &wsa);
  SOCKET s = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
  struct sockaddr_in addr = {0};
  addr.sin_family = AF_INET;
  addr.sin_port = htons((unsigned short)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, (struct sockaddr *)&addr, sizeof addr) != 0) {
    fprintf(stderr, "relay: cannot connect to 127.0.0.1:%d\n", port);
    return 127;
  }

  int argc = 0;
  wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);
  wchar_t cwd[MAX_PATH];
  GetCurrentDirectoryW(MAX_PATH, cwd);
  if (send_u32(s, (unsigned)argc) || send_wide(s, cwd)) return 127;
  for (int i = 1; i < argc; i++)
    if (send_wide(s, argv[i])) return 127;

  unsigned code;
  if (recv_u32(s, &code) || relay_stream(s, GetStdHandle(STD_OUTPUT_HANDLE)) ||
      relay_stream(s, GetStdHandle(STD_ERROR_HANDLE))) {
    fprintf(stderr, "relay: the relay server closed the connection\n");
    return 127;
  }
  closesocket(s);
  return (int)code;
}
