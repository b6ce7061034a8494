/** Your code as a JPMS module: it needs only the Verbs API. */
module com.example.rdma {
    requires org.roce4j.verbs;
    exports com.example;
}
