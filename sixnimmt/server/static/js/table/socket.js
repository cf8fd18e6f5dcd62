// The table's WebSocket: connects with the seat token, reconnects with a growing pause, sends JSON.
import { t, toast } from "../util.js";

/** Open the socket of table `code`. `onMessage(message)` gets every parsed message; `onLost()` is
 * called when the connection drops (before the retry). Returns {send, online, close}. */
export function openSocket(code, token, { onMessage, onLost }) {
  let socket = null;
  let closed = false;
  let retry = 0;

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // the seat token travels as a subprotocol, never in the URL (so it is in no access log)
    const protocols = token ? ["sixnimmt", `token.${token}`] : ["sixnimmt"];
    socket = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(code)}`, protocols);
    socket.onopen = () => { retry = 0; };
    socket.onmessage = (event) => {
      let message;
      try { message = JSON.parse(event.data); } catch { return; } // not ours to understand
      onMessage(message);
    };
    socket.onclose = () => {
      if (closed) return;
      onLost();
      toast(t("table.reconnecting"), true);
      setTimeout(connect, Math.min(5000, 500 * 2 ** retry++));
    };
  }

  const online = () => !!socket && socket.readyState === WebSocket.OPEN;
  function send(message) {
    if (online()) socket.send(JSON.stringify(message));
    else toast(t("table.reconnecting"), true);
  }
  function close() { closed = true; socket?.close(); }

  connect();
  return { send, online, close };
}
