package org.roce4j.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.roce4j.cm.ConnParam;
import org.roce4j.cm.UdParam;

/**
 * One face (issue 21): the verbs-api's toStrings print QP numbers and PSNs as {@code 0x%06x} and keys
 * as {@code 0x%08x} ({@link NumberText}), as rdma-core's tools, the testkit and {@code roce4j decode}
 * do. The values are chosen so that their decimal forms (74565, 703710, 305441741) are easy to catch.
 */
class OneFaceTest {
    private static final int QPN = 0x012345;
    private static final int PSN = 0x0abcde;
    private static final int KEY = 0x1234abcd;
    /** Any of the values in decimal, as a whole number in a toString. */
    private static final Pattern DECIMAL = Pattern.compile("(?<![0-9a-fx])(" + QPN + "|" + PSN + "|" + KEY + ")(?![0-9])");

    /** The records whose toString this test checks; a new record with a QPN, PSN or key must join them. */
    private static final Set<String> CHECKED = Set.of("WorkCompletion", "UdParam", "ConnParam", "QpBringUp",
            "QpBringUp$Remote");
    private static final Pattern NAMES_A_NUMBER = Pattern.compile("(?i).*(qpn|qpnum|srcqp|psn|rkey|lkey|qkey)$");

    @Test
    @DisplayName("WorkCompletion: qp_num, src_qp 0x%06x, invalidated_rkey 0x%08x")
    void workCompletion() {
        WorkCompletion wc = new WorkCompletion(7, WcStatus.SUCCESS, WcOpcode.RECV, 0, 64, 0, KEY, QPN, QPN,
                WcFlag.WITH_INV.bit(), 0, 0, 0, 0);

        assertHexOnly(wc.toString(), "qp_num=0x012345", "src_qp=0x012345", "invalidated_rkey=0x1234abcd");
    }

    @Test
    @DisplayName("QpAttr: dest_qp 0x%06x, rq_psn and sq_psn 0x%06x, qkey 0x%08x")
    void qpAttr() {
        QpAttr attr = new QpAttr().destQpNum(QPN).rqPsn(PSN).sqPsn(PSN).qkey(KEY);

        assertHexOnly(attr.toString(), "dest_qp=0x012345", "rq_psn=0x0abcde", "sq_psn=0x0abcde", "qkey=0x1234abcd");
    }

    @Test
    @DisplayName("SendWr and its SGEs: lkey, rkey, remote_qkey 0x%08x, remote_qpn 0x%06x")
    void sendWr() {
        Mr mr = stub(Mr.class, KEY);
        SendWr write = SendWr.rdmaWrite(1, mr, 0, 8, 0x1000, KEY);
        SendWr ud = SendWr.send(2, mr, 0, 8).ud(stub(Ah.class, 0), QPN, KEY);

        assertHexOnly(write.toString(), "lkey=0x1234abcd", "rkey=0x1234abcd");
        assertHexOnly(ud.toString(), "remote_qpn=0x012345", "remote_qkey=0x1234abcd");
        assertHexOnly(new ScatterGatherList().add(0x1000, 8, KEY).toString(), "lkey=0x1234abcd");
    }

    @Test
    @DisplayName("QpBringUp and QpBringUp.Remote: qkey 0x%08x, qpNum and psn 0x%06x")
    void qpBringUp() {
        QpBringUp.Remote remote = new QpBringUp.Remote(QPN, PSN, Gid.parse("::ffff:10.0.0.1"));

        assertHexOnly(remote.toString(), "qpNum=0x012345", "psn=0x0abcde");
        assertHexOnly(QpBringUp.pingpong().withQkey(KEY).toString(), "qkey=0x1234abcd");
    }

    @Test
    @DisplayName("rdma_cm's UdParam and ConnParam: qpNum 0x%06x, qkey 0x%08x")
    void connectionManagerParameters() {
        UdParam ud = new UdParam(new byte[0], AhAttr.of(Gid.parse("::ffff:10.0.0.1"), 0, 1), QPN, KEY);
        ConnParam conn = new ConnParam(new byte[0], 1, 1, 0, 7, 7, false, QPN);

        assertHexOnly(ud.toString(), "qpNum=0x012345", "qkey=0x1234abcd");
        assertHexOnly(conn.toString(), "qpNum=0x012345");
    }

    @Test
    @DisplayName("every verbs-api record with a QPN, PSN or key component is one whose toString this test checks")
    void everyRecordWithANumberIsChecked() throws IOException, URISyntaxException {
        Path classes = Path.of(WorkCompletion.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Set<String> withNumbers = new TreeSet<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                String name = classes.relativize(file).toString().replace('/', '.').replaceFirst("\\.class$", "");
                Class<?> type;
                try {
                    type = Class.forName(name, false, WorkCompletion.class.getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    continue;
                }
                if (type.isRecord() && Stream.of(type.getRecordComponents()).map(RecordComponent::getName)
                        .anyMatch(component -> NAMES_A_NUMBER.matcher(component).matches())) {
                    withNumbers.add(type.getName().substring(type.getPackageName().length() + 1));
                }
            }
        }
        assertThat(withNumbers).as("records with a QPN, PSN or key").isNotEmpty();
        assertThat(CHECKED).as("records whose toString is checked").containsAll(withNumbers);
    }

    private static void assertHexOnly(String text, String... hex) {
        assertThat(text).contains(hex);
        assertThat(DECIMAL.matcher(text).find()).as("a QPN, PSN or key in decimal in %s", text).isFalse();
    }

    /** An interface whose int methods answer {@code value} (an Mr's lkey and rkey) and the rest their defaults. */
    private static <T> T stub(Class<T> type, int value) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            Class<?> returns = method.getReturnType();
            if (method.getName().equals("toString")) {
                return type.getSimpleName() + " stub";
            }
            return returns == int.class ? value : returns == long.class ? 0L : returns == boolean.class ? false : null;
        }));
    }
}
