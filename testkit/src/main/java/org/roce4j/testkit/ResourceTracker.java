package org.roce4j.testkit;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.roce4j.verbs.Ah;
import org.roce4j.verbs.AsyncEvent;
import org.roce4j.verbs.CompChannel;
import org.roce4j.verbs.Context;
import org.roce4j.verbs.Cq;
import org.roce4j.verbs.CqEx;
import org.roce4j.verbs.Device;
import org.roce4j.verbs.Mr;
import org.roce4j.verbs.Mw;
import org.roce4j.verbs.MwBind;
import org.roce4j.verbs.MwBindInfo;
import org.roce4j.verbs.Pd;
import org.roce4j.verbs.Qp;
import org.roce4j.verbs.QpEx;
import org.roce4j.verbs.QpInitAttr;
import org.roce4j.verbs.QpInitAttrEx;
import org.roce4j.verbs.RecvWr;
import org.roce4j.verbs.SendWr;
import org.roce4j.verbs.Srq;

/**
 * Watches every verbs object a test gets from the devices the extension hands it: what was created
 * and not destroyed, completion events got and not acknowledged, and every work request posted
 * (so that an assertion on a completion can show the request it completes).
 *
 * <p>It works at the Verbs API, for any backend: each object is a {@link Proxy} over the
 * backend's own, and arguments are unwrapped before the backend sees them (a backend may cast a
 * CQ in {@link QpInitAttr} to its own class, as the emulator does).
 */
final class ResourceTracker {
    /** The interfaces whose objects are wrapped: everything with a lifetime in the verbs object model. */
    /** A proxy implements the first of these its object is: the extended QP and CQ before the plain ones. */
    private static final List<Class<?>> TRACKED = List.of(Device.class, Context.class, Pd.class, Mr.class, Mw.class,
            CqEx.class, Cq.class, CompChannel.class, QpEx.class, Qp.class, Srq.class, Ah.class);
    private static final int MAX_REMEMBERED_WORK_REQUESTS = 100_000;
    /**
     * The calls that create an object the test must destroy: ibv_open_device, ibv_alloc_pd, ibv_reg_mr,
     * ibv_alloc_mw, ibv_create_* (and their _ex forms).
     */
    private static final java.util.Set<String> CREATING_VERBS = java.util.Set.of("open", "allocPd", "regMr",
            "regImplicitOdpMr", "allocMw", "createCq", "createCqEx", "createCompChannel", "createQp", "createQpEx",
            "createSrq", "createAh");

    private final Map<Object, Object> proxies = new IdentityHashMap<>();
    private final Map<Object, Object> targets = new IdentityHashMap<>();
    private final List<TrackedResource> created = new ArrayList<>();
    private final Map<Object, Integer> unackedCqEvents = new IdentityHashMap<>();
    private final PostedWorkRequests posted = new PostedWorkRequests(MAX_REMEMBERED_WORK_REQUESTS);

    /** {@return the device, wrapped so that everything opened from it is tracked} */
    synchronized Device wrap(Device device) {
        return (Device) proxyFor(device);
    }

    synchronized PostedWorkRequests posted() {
        return posted;
    }

    /** Resources the test created through tracked objects and did not destroy, oldest first. */
    synchronized List<TrackedResource> leaked() {
        return created.stream().filter(r -> r.isOpen() && !r.isOwnedByTestkit()).toList();
    }

    /** Marks a tracked object as the testkit's own (a context it opened): closed by it, never a leak. */
    synchronized void ownedByTestkit(Object proxy) {
        Object target = unwrap(proxy);
        for (TrackedResource tracked : created) {
            if (tracked.target() == target) {
                tracked.markOwnedByTestkit();
            }
        }
    }

    /** {@return completion events got from a channel and not acknowledged, per CQ description} */
    synchronized Map<String, Integer> unacknowledgedEvents() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (TrackedResource resource : created) {
            Integer n = unackedCqEvents.get(resource.target());
            if (n != null && n > 0) {
                out.put(resource.description(), n);
            }
        }
        return out;
    }

    /**
     * Acknowledges what is left unacknowledged and destroys what is left open, newest first, so that
     * the devices can be closed. {@return the failures met on the way (also expected: none)}
     */
    List<Throwable> closeEverything() {
        List<Throwable> failures = new ArrayList<>();
        List<TrackedResource> snapshot;
        synchronized (this) {
            snapshot = new ArrayList<>(created);
        }
        // ibv_ack_cq_events first: a CQ with unacknowledged events cannot be destroyed.
        for (TrackedResource resource : snapshot) {
            if (resource.isOpen() && resource.target() instanceof Cq cq && cq.channel() != null) {
                Integer n;
                synchronized (this) {
                    n = unackedCqEvents.remove(cq);
                }
                if (n != null && n > 0) {
                    try {
                        cq.channel().ackCqEvents(cq, n);
                    } catch (RuntimeException e) {
                        failures.add(e);
                    }
                }
            }
        }
        for (int i = snapshot.size() - 1; i >= 0; i--) {
            TrackedResource resource = snapshot.get(i);
            if (resource.isOpen()) {
                try {
                    ((AutoCloseable) resource.target()).close();
                    resource.markClosed();
                } catch (Exception e) {
                    failures.add(e);
                }
            }
        }
        return failures;
    }

    // ---- the proxies ---------------------------------------------------------------------

    private Object proxyFor(Object target) {
        Object existing = proxies.get(target);
        if (existing != null) {
            return existing;
        }
        Class<?> api = apiOf(target);
        Object proxy = Proxy.newProxyInstance(ResourceTracker.class.getClassLoader(), new Class<?>[] {api},
                new Handler(target));
        proxies.put(target, proxy);
        targets.put(proxy, target);
        return proxy;
    }

    private static Class<?> apiOf(Object target) {
        for (Class<?> api : TRACKED) {
            if (api.isInstance(target)) {
                return api;
            }
        }
        throw new IllegalArgumentException("not a tracked verbs object: " + target.getClass());
    }

    private static boolean isTracked(Object value) {
        if (value == null) {
            return false;
        }
        for (Class<?> api : TRACKED) {
            if (api.isInstance(value)) {
                return true;
            }
        }
        return false;
    }

    /** The backend's object behind a proxy (or the value itself). */
    private synchronized Object unwrap(Object value) {
        Object target = value == null ? null : targets.get(value);
        return target != null ? target : value;
    }

    /** The proxy for a backend object the API returned (made on first sight). */
    private synchronized Object rewrap(Object value) {
        return isTracked(value) ? proxyFor(value) : value;
    }

    private Object[] unwrapArguments(Object[] args) {
        if (args == null) {
            return null;
        }
        Object[] out = args.clone();
        for (int i = 0; i < out.length; i++) {
            Object arg = out[i];
            out[i] = switch (arg) {
                case QpInitAttr init -> unwrapped(init);
                case QpInitAttrEx init -> new QpInitAttrEx(unwrapped(init.base()), init.sendOps());
                case MwBindInfo info -> unwrapped(info); // QpEx.wrBindMw
                case MwBind bind -> new MwBind(bind.wrId(), bind.sendFlags(), unwrapped(bind.bindInfo())); // Qp.bindMw
                case null, default -> unwrap(arg);
            };
        }
        return out;
    }

    /** The CQs and SRQ a QP is created with, as the backend knows them. */
    private QpInitAttr unwrapped(QpInitAttr init) {
        return new QpInitAttr(init.type(), (Cq) unwrap(init.sendCq()), (Cq) unwrap(init.recvCq()),
                (Srq) unwrap(init.srq()), init.cap(), init.sqSigAll());
    }

    /** A bind's region as the backend knows it: the region is the caller's tracked proxy. */
    private MwBindInfo unwrapped(MwBindInfo info) {
        return info == null ? null : new MwBindInfo((Mr) unwrap(info.mr()), info.addr(), info.length(), info.mwAccessFlags());
    }

    private Object rewrapResult(Object result) {
        return switch (result) {
            case null -> null;
            case Optional<?> optional -> optional.map(this::rewrap);
            case AsyncEvent event -> new AsyncEvent(event.type(), (Cq) rewrap(event.cq()), (Qp) rewrap(event.qp()),
                    (Srq) rewrap(event.srq()), event.portNum());
            case QpInitAttr init -> new QpInitAttr(init.type(), (Cq) rewrap(init.sendCq()), (Cq) rewrap(init.recvCq()),
                    (Srq) rewrap(init.srq()), init.cap(), init.sqSigAll());
            default -> rewrap(result);
        };
    }

    /** What happens around each call on a tracked object. */
    private final class Handler implements InvocationHandler {
        private final Object target;

        Handler(Object target) {
            this.target = target;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            switch (method.getName()) {
                case "equals" -> {
                    if (method.getParameterCount() == 1) {
                        return proxy == args[0];
                    }
                }
                case "hashCode" -> {
                    if (method.getParameterCount() == 0) {
                        return System.identityHashCode(proxy);
                    }
                }
                case "toString" -> {
                    if (method.getParameterCount() == 0) {
                        return target.toString();
                    }
                }
                default -> { }
            }
            Object[] backendArgs = unwrapArguments(args);
            List<Runnable> restore = swapAddressHandles(backendArgs);
            Object result;
            try {
                result = method.invoke(target, backendArgs);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            } finally {
                restore.forEach(Runnable::run);
            }
            observe(method, backendArgs, result);
            return rewrapResult(result);
        }

        /**
         * A UD {@link SendWr} names its address handle, a BIND_MW its window and region; the backend
         * must see its own. The request is the caller's (reusable) object: swap them for the call and
         * put them back after — backends copy what they need at post time.
         */
        private List<Runnable> swapAddressHandles(Object[] args) {
            if (args == null || !(target instanceof Qp)) {
                return List.of();
            }
            List<Runnable> restore = new ArrayList<>();
            for (Object arg : args) {
                if (arg instanceof SendWr wr) {
                    swap(wr, restore);
                } else if (arg instanceof List<?> list) {
                    for (Object element : list) {
                        if (element instanceof SendWr wr) {
                            swap(wr, restore);
                        }
                    }
                }
            }
            return restore;
        }

        private void swap(SendWr wr, List<Runnable> restore) {
            Mw window = wr.mw();
            if (window != null) {
                MwBindInfo info = wr.bindInfo();
                int rkey = wr.bindRkey();
                wr.bindMw((Mw) unwrap(window), rkey, unwrapped(info));
                restore.add(() -> wr.bindMw(window, rkey, info));
            }
            Ah handle = wr.ah();
            Object backend = unwrap(handle);
            if (handle != null && backend != handle) {
                int qpn = wr.remoteQpn();
                int qkey = wr.remoteQkey();
                wr.ud((Ah) backend, qpn, qkey);
                restore.add(() -> wr.ud(handle, qpn, qkey));
            }
        }

        private void observe(Method method, Object[] args, Object result) {
            String name = method.getName();
            if (name.equals("close") && method.getParameterCount() == 0) {
                closed(target);
                return;
            }
            if (target instanceof Qp qp) {
                if (name.equals("postSend") || name.equals("postRecv")) {
                    recordPosts(qp, args[0]);
                }
                return;
            }
            if (target instanceof CompChannel && name.equals("getCqEvent") && result instanceof Optional<?> got
                    && got.isPresent()) {
                synchronized (ResourceTracker.this) {
                    unackedCqEvents.merge(got.get(), 1, Integer::sum);
                }
                return;
            }
            if (target instanceof CompChannel && name.equals("ackCqEvents")) {
                synchronized (ResourceTracker.this) {
                    unackedCqEvents.merge(args[0], -(Integer) args[1], Integer::sum);
                }
                return;
            }
            if (CREATING_VERBS.contains(name) && isTracked(result)) {
                created(result);
            }
        }

        private void recordPosts(Qp qp, Object posted) {
            String device = qp.pd().context().device().name();
            List<?> requests = posted instanceof List<?> list ? list : List.of(posted);
            for (Object request : requests) {
                switch (request) {
                    case SendWr wr -> posted().record(device, qp.qpNum(), wr.wrId(), true, wr.toString());
                    case RecvWr wr -> posted().record(device, qp.qpNum(), wr.wrId(), false, wr.toString());
                    default -> { }
                }
            }
        }
    }

    private synchronized void created(Object resource) {
        created.add(new TrackedResource(resource, Describe.resource(resource), CreationSite.ofCaller()));
    }

    private synchronized void closed(Object resource) {
        for (TrackedResource tracked : created) {
            if (tracked.target() == resource) {
                tracked.markClosed();
            }
        }
    }
}
