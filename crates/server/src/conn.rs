//! One accepted connection: TLS when configured, the peer's address on every request, and a
//! bound on how long an answer may wait for a client that does not read it.

use std::future::Future as _;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::Watcher;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Sleep;

/// How each connection is served.
#[derive(Clone)]
pub(crate) struct Serving {
    pub(crate) http: http1::Builder,
    pub(crate) app: Router,
    pub(crate) tls: Option<tokio_rustls::TlsAcceptor>,
    /// The time a TLS handshake gets (the header timeout: nothing has been sent yet).
    pub(crate) handshake: Duration,
    /// The time an answer may stay stalled on a client that reads none of it.
    pub(crate) write: Duration,
}

impl Serving {
    /// Serves `stream` until it closes, the client stalls an answer past the write limit,
    /// or the shutdown `watcher` ends it after the request in flight.
    pub(crate) async fn connection(self, stream: TcpStream, peer: SocketAddr, watcher: Watcher) {
        let io = TimedWrites::new(stream, self.write);
        let app = self.app;
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            let mut app = app.clone();
            async move {
                std::future::poll_fn(|cx| {
                    tower::Service::<hyper::Request<Incoming>>::poll_ready(&mut app, cx)
                })
                .await?;
                tower::Service::call(&mut app, req).await
            }
        });
        let result = match self.tls {
            None => watcher.watch(self.http.serve_connection(TokioIo::new(io), service)).await,
            Some(acceptor) => match tokio::time::timeout(self.handshake, acceptor.accept(io)).await
            {
                Ok(Ok(tls)) => {
                    watcher.watch(self.http.serve_connection(TokioIo::new(tls), service)).await
                }
                Ok(Err(e)) => {
                    tracing::debug!(error = %e, "TLS handshake failed");
                    return;
                }
                Err(_) => {
                    tracing::debug!("TLS handshake timed out");
                    return;
                }
            },
        };
        // A header timeout, a reset, a client gone mid-body or an answer it stopped
        // reading: the connection is closed and nothing else needs doing. Idle keep-alive
        // connections end this way too.
        if let Err(e) = result {
            tracing::debug!(error = %e, "connection closed");
        }
    }
}

/// A stream whose writes fail once they have waited on the client for `limit`: counted
/// from the first write the client's window holds back, until everything written has gone
/// out (a flush that completes). A client that reads an answer slowly but steadily has
/// `limit` for the whole of it once it falls behind; one that reads nothing loses the
/// connection after `limit`, and the answer's memory with it.
pub(crate) struct TimedWrites<S> {
    inner: S,
    limit: Duration,
    stalled: Option<Pin<Box<Sleep>>>,
}

impl<S> TimedWrites<S> {
    pub(crate) fn new(inner: S, limit: Duration) -> Self {
        TimedWrites { inner, limit, stalled: None }
    }

    /// The write was held back: start the clock if it is not running, fail if it ran out.
    fn held<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let limit = self.limit;
        let clock = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match clock.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the client read none of the answer for {} s", limit.as_secs()),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for TimedWrites<S> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for TimedWrites<S> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write(cx, buf) {
            Poll::Pending => this.held(cx),
            done => done,
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_write_vectored(cx, bufs) {
            Poll::Pending => this.held(cx),
            done => done,
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_flush(cx) {
            Poll::Ready(Ok(())) => {
                this.stalled = None;
                Poll::Ready(Ok(()))
            }
            Poll::Pending => this.held(cx),
            failed => failed,
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_shutdown(cx) {
            Poll::Pending => this.held(cx),
            done => done,
        }
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt as _;

    use super::*;

    /// A client that never reads: the writer fails after the limit, not before.
    #[tokio::test(start_paused = true)]
    async fn writes_to_a_client_that_reads_nothing_fail_after_the_limit() {
        let (near, _far) = tokio::io::duplex(1024);
        let mut w = TimedWrites::new(near, Duration::from_secs(30));
        let started = tokio::time::Instant::now();
        let chunk = vec![7u8; 4096];
        let err = loop {
            if let Err(e) = w.write_all(&chunk).await {
                break e;
            }
        };
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_secs(30) && waited < Duration::from_secs(31),
            "{waited:?}"
        );
    }

    /// A client that reads, slowly: each answer is held back for a while, less than the
    /// limit, and the flush that completes it stops the clock, so ten answers that take
    /// longer than the limit in all go through.
    #[tokio::test(start_paused = true)]
    async fn a_slow_reader_that_keeps_reading_is_not_cut_off() {
        let (near, mut far) = tokio::io::duplex(1024);
        let mut w = TimedWrites::new(near, Duration::from_secs(6));
        let reader = tokio::spawn(async move {
            let mut buf = vec![0u8; 512];
            let mut total = 0usize;
            loop {
                tokio::time::sleep(Duration::from_secs(1)).await;
                match tokio::io::AsyncReadExt::read(&mut far, &mut buf).await {
                    Ok(0) | Err(_) => break total,
                    Ok(n) => total += n,
                }
            }
        });
        let started = tokio::time::Instant::now();
        for _ in 0..10 {
            // Twice the window: the writer waits on the reader for each answer.
            w.write_all(&[1u8; 2048]).await.expect("write");
            w.flush().await.expect("flush");
        }
        assert!(started.elapsed() > Duration::from_secs(15), "{:?}", started.elapsed());
        w.shutdown().await.expect("shutdown");
        drop(w);
        assert_eq!(reader.await.expect("reader"), 10 * 2048);
    }
}
