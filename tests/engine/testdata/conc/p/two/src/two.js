export default "two";
