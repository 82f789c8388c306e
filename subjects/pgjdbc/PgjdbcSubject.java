/*
 * crossdec external subject (protocol version 1, family pg-bytea): pgjdbc's
 * bytea decoder, org.postgresql.util.PGbytea.toBytes(byte[]).
 *
 * Request:  u32-LE length N, then N bytes (the bytea literal as the server
 *           sends it in text format).
 * Response: u32-LE length, a status byte, then the body:
 *           0  ByteaValue: u64-LE count + the bytes, u64-LE consumed (= N);
 *           3  UTF-8 "ExceptionSimpleName: message" when toBytes throws.
 *
 * See docs/reference/subjects.md for the protocol and README.md next to this file for
 * what pgjdbc does with malformed literals.
 */

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

import org.postgresql.util.PGbytea;

public final class PgjdbcSubject {
  /** Larger requests are refused: no bytea literal crossdec sends comes near it. */
  private static final long MAX_REQUEST = 1L << 30;

  private static final int STATUS_DECODED = 0;
  private static final int STATUS_FAILED = 3;

  private final DataInputStream in;
  private final OutputStream out;
  /** Room for the largest fixed-size piece we write: frame length + status + count. */
  private final byte[] scratch = new byte[13];

  private PgjdbcSubject(DataInputStream in, OutputStream out) {
    this.in = in;
    this.out = out;
  }

  public static void main(String[] args) {
    // crossdec says what it expects; refuse rather than answer another
    // protocol or family with pg-bytea values. (Unset: run by hand.)
    expectEnv("CROSSDEC_PROTOCOL", "1");
    expectEnv("CROSSDEC_FAMILY", "pg-bytea");

    // The raw descriptors, not System.in/System.out: System.out is a
    // PrintStream that would swallow write errors.
    DataInputStream in = new DataInputStream(
        new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16));
    OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
    try {
      new PgjdbcSubject(in, out).serve();
      out.flush();
    } catch (EOFException e) {
      flushQuietly(out); // the requests before this one are answered
      die("end of input inside a frame");
    } catch (IOException e) {
      die("I/O error: " + e);
    }
    System.exit(0);
  }

  private void serve() throws IOException {
    while (true) {
      // crossdec may wait for our responses before it sends more, so never
      // block on a read while responses sit in our buffer.
      flushUnlessAvailable(4);
      int first = in.read();
      if (first < 0) {
        return; // stdin closed at a frame boundary: we are done
      }
      in.readFully(scratch, 0, 3);
      long length = (first & 0xffL)
          | (scratch[0] & 0xffL) << 8
          | (scratch[1] & 0xffL) << 16
          | (scratch[2] & 0xffL) << 24;
      if (length > MAX_REQUEST) {
        flushQuietly(out);
        die("request of " + length + " bytes is larger than the limit of " + MAX_REQUEST);
      }
      flushUnlessAvailable(length);
      answer((int) length);
    }
  }

  /** Reads one request body of the given length and writes its response. */
  private void answer(int length) throws IOException {
    byte[] literal;
    try {
      literal = new byte[length];
    } catch (OutOfMemoryError e) {
      // Read past the body so the stream stays in step, and say why.
      discard(length);
      fail(e);
      return;
    }
    in.readFully(literal);

    byte[] decoded;
    try {
      decoded = PGbytea.toBytes(literal);
    } catch (VirtualMachineError e) {
      // Running out of heap or stack is an answer about this input; any
      // other VM error means the JVM itself is broken: let it crash us.
      if (e instanceof OutOfMemoryError || e instanceof StackOverflowError) {
        fail(e);
        return;
      }
      throw e;
    } catch (Throwable e) {
      fail(e);
      return;
    }
    if (decoded == null) {
      // toBytes returns null only for a null argument; report it rather
      // than guess a value.
      frame(STATUS_FAILED, "null".getBytes(StandardCharsets.UTF_8));
      return;
    }

    // Frame: length, status, u64 count, the bytes, u64 consumed.
    putLe(scratch, 0, 1 + 8 + decoded.length + 8, 4);
    scratch[4] = STATUS_DECODED;
    putLe(scratch, 5, decoded.length, 8);
    out.write(scratch, 0, 13);
    out.write(decoded);
    putLe(scratch, 0, length, 8);
    out.write(scratch, 0, 8);
  }

  /** Reads and drops n bytes (skip() would seek, which a pipe cannot do). */
  private void discard(int n) throws IOException {
    byte[] chunk = new byte[8192];
    while (n > 0) {
      int read = in.read(chunk, 0, Math.min(n, chunk.length));
      if (read < 0) {
        throw new EOFException();
      }
      n -= read;
    }
  }

  /** Status 3 with the exception's simple class name and message. */
  private void fail(Throwable e) throws IOException {
    String message = e.getMessage();
    String text = e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    frame(STATUS_FAILED, text.getBytes(StandardCharsets.UTF_8));
  }

  private void frame(int status, byte[] body) throws IOException {
    putLe(scratch, 0, 1 + body.length, 4);
    scratch[4] = (byte) status;
    out.write(scratch, 0, 5);
    out.write(body);
  }

  /**
   * Flushes our responses unless the next {@code needed} bytes can be read
   * without blocking. (available() counts what BufferedInputStream holds
   * plus what the pipe holds.)
   */
  private void flushUnlessAvailable(long needed) throws IOException {
    if (in.available() < needed) {
      out.flush();
    }
  }

  private static void putLe(byte[] b, int off, long value, int width) {
    for (int i = 0; i < width; i++) {
      b[off + i] = (byte) (value >>> (8 * i));
    }
  }

  private static void expectEnv(String name, String expected) {
    String value = System.getenv(name);
    if (value != null && !value.equals(expected)) {
      die(name + " is '" + value + "', this subject speaks only " + expected);
    }
  }

  private static void flushQuietly(OutputStream out) {
    try {
      out.flush();
    } catch (IOException ignored) {
      // we are about to exit with an error anyway
    }
  }

  private static void die(String message) {
    System.err.println("pgjdbc subject: " + message);
    System.exit(1);
  }
}
